/**
 * Keys and the screen as a person meets them, in a real tmux (a private
 * server started with an environment of its own, always killed): the built
 * `tai` around bash, keys sent with send-keys, mouse reports as the raw bytes
 * a terminal sends, the screen read with capture-pane. Waits on conditions,
 * never on time.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tmuxEnv } from '../helpers/test-env.js';
import { TAI_CLI as CLI } from '../helpers/tai-cli.js';
import { buildCli, hasTmux, tmuxFolder, TmuxServer, type TmuxSession } from '../helpers/tmux-session.js';

const dir = tmuxFolder('tai-keys-');
/** The tmux server's whole environment (test/helpers/test-env.ts): nothing of the caller's. */
const ENV = tmuxEnv(dir);
const server = new TmuxServer('tai-keys', ENV);
let term: TmuxSession;

const screen = (): string[] => term.screen();
const text = (): string => term.text();
/** The main pane's part of the screen (left of the separator at 120x40: 66 columns). */
const mainText = (): string => term.columns(0, 66);
const keys = (...k: string[]): void => term.keys(...k);
const type = (s: string): void => term.type(s);
/** Raw bytes into tai's terminal, as the outer terminal sends a mouse report. */
const bytes = (s: string): void => term.bytes(s);
const PREFIX = 'C-]';

describe.skipIf(!hasTmux)('keys and the screen in tmux', () => {
  beforeAll(() => {
    buildCli();
    term = server.start('k');
  }, 120_000);

  beforeEach(() => {
    term.resize(120, 40);
  });

  afterAll(() => server.end(dir));

  it('returns a pane scrolled back by the wheel to the live screen at the first key, and hands the key on', async () => {
    await term.startTai();
    type('for i in $(seq 1 120); do echo "row $i"; done\r');
    await term.until(() => expect(mainText()).toContain('row 120'));
    bytes('\x1b[<64;10;10M\x1b[<64;10;10M');
    await term.until(() => expect(screen()[0]).toContain('any key returns'));
    type('echo yz-$((6*7))\r');
    await term.until(() => expect(mainText()).toMatch(/^yz-42 *$/m));
    expect(screen()[0]).not.toContain('scrolled back');
    // q only returns: it reaches nobody.
    bytes('\x1b[<64;10;10M');
    await term.until(() => expect(screen()[0]).toContain('any key returns'));
    type('q');
    await term.until(() => expect(screen()[0]).not.toContain('scrolled back'));
    type('echo after-$((6*7))\r');
    await term.until(() => expect(mainText()).toMatch(/^in\$ echo after-\$\(\(6\*7\)\)$/m));
    await term.endTai();
  }, 60_000);

  it('gives the focus back where it was after a finished agent opened from the list is un-zoomed, and its panel says it has ended', async () => {
    await term.startTai();
    type(`node ${CLI} spawn --label quick -- echo hi; echo SPAWNED=$?\r`);
    await term.until(() => expect(mainText()).toContain('SPAWNED=0'));
    keys(PREFIX, 'w');
    await term.until(() => expect(screen()[0]).toMatch(/^ tai agents/));
    await term.until(() => expect(text()).toMatch(/✓ #1 {2}quick · done/));
    keys('Enter');
    await term.until(() => expect(screen()[0]).toMatch(/^ ✓ quick · done/));
    keys(PREFIX, 'z');
    await term.until(() => expect(screen()[0]).toMatch(/│ ✓ quick · done/));
    type('echo back-$((6*7))\r');
    await term.until(() => expect(mainText()).toMatch(/^back-42 *$/m));
    // Typed into the ended agent's panel: its line says it has ended and how to start anew; nothing is sent.
    keys(PREFIX, 'n');
    type('hi');
    await term.until(() => expect(text()).toContain('✗ ended (done) · start anew: tai spawn, prefix @'));
    keys('Escape');
    await term.until(() => expect(text()).not.toContain('✗ ended'));
    keys(PREFIX, 'n');
    await term.endTai();
  }, 60_000);

  it('says on the status line that a pane is zoomed, and reflows what the main program wrote while zoomed when it is un-zoomed', async () => {
    await term.startTai('demo --agents silent');
    await term.until(() => expect(screen()[0]).toContain('demo silent #1'));
    keys(PREFIX, 'z');
    await term.until(() => expect(screen()[39]).toContain('zoomed: main pane (C-] z)'));
    type(`echo ${'w'.repeat(50)}$((6*7))${'v'.repeat(40)}\r`);
    await term.until(() => expect(text()).toMatch(new RegExp(`^${'w'.repeat(50)}42${'v'.repeat(40)} *$`, 'm')));
    keys(PREFIX, 'z');
    await term.until(() => expect(screen()[0]).toContain('demo silent #1'));
    expect(screen()[39]).not.toContain('zoomed');
    // The 92 characters are wrapped at the 66 columns of the main pane, none lost.
    await term.until(() => expect(mainText()).toContain(`${'w'.repeat(50)}42${'v'.repeat(14)}\n${'v'.repeat(26)}`));
    await term.endTai();
  }, 60_000);

  it('asks before prefix + x cancels a running agent, then points the agent list to tai logs; prefix + D off a lane says why', async () => {
    await term.startTai('demo --agents silent');
    // Its usage reported: its process is up and handles SIGTERM (a signal before that kills it unlogged).
    await term.until(() => expect(screen()[0]).toMatch(/│ ● demo silent #1 · running .* tok/));
    keys(PREFIX, 'n');
    // Not a lane: the refusal is on the status line until the next key.
    keys(PREFIX, 'D');
    await term.until(() => expect(screen()[39]).toContain("pane 1 is not a lane's panel"));
    keys(PREFIX, 'x');
    await term.until(() => expect(screen()[39]).toContain('cancel #1 demo silent #1? y cancels it, any other key keeps it'));
    expect(screen()[39]).not.toContain("not a lane's panel");
    keys('n'); // any other key keeps it
    await term.until(() => expect(screen()[39]).toContain('C-] ? help'));
    expect(screen()[0]).toMatch(/│ ● demo silent #1 · running/);
    keys(PREFIX, 'x');
    await term.until(() => expect(screen()[39]).toContain('y cancels it'));
    keys('y');
    await term.until(() => expect(screen()[39]).toMatch(/│ 0 running · 1 cancelled /));
    expect(text()).not.toContain('demo silent #1 · ');
    keys(PREFIX, 'w');
    await term.until(() => expect(screen()[1]).toMatch(/⊘ #1 {2}demo silent #1 · cancelled · \d+s · its transcript: tai logs 1/));
    keys('q');
    await term.endTai();
  }, 60_000);

  it('shows the whole help on a 60x20 terminal by scrolling, with the answer keys and what keys typed into a panel do', async () => {
    term.resize(60, 20);
    await term.startTai();
    const rows = (): string[] => screen().slice(0, 20);
    keys(PREFIX, '?');
    await term.until(() => expect(rows()[0]).toMatch(/^ tai keys: press C-\], then · 1-18 of \d+ · Space: more/));
    const seen = new Set<string>(rows().slice(1));
    // A page at a time until the end: the title says which lines are shown.
    for (let page = 0; page < 5 && rows()[0].includes('more'); page++) {
      const before = rows()[0];
      keys('Space');
      await term.until(() => expect(rows()[0]).not.toBe(before));
      for (const r of rows().slice(1)) seen.add(r);
    }
    expect(rows()[0]).not.toContain('more');
    const all = [...seen].map((r) => r.trim()).join(' ');
    expect(all).toContain('1 .. 9');
    expect(all).toMatch(/y \/ n +the question's first allow \/ reject/);
    expect(all).toContain('opens the steering line');
    expect(all).not.toContain('dropped');
    expect(all).toContain('any other key closes it.');
    keys('q');
    await term.until(() => expect(rows()[0]).not.toContain('tai keys'));
    await term.endTai();
  }, 60_000);
});
