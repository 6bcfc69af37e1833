/**
 * Keys and the screen as a person meets them, in a real tmux (a private
 * server started with an environment of its own, always killed): the built
 * `tai` around bash, keys sent with send-keys, mouse reports as the raw bytes
 * a terminal sends, the screen read with capture-pane. Waits on conditions,
 * never on time.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { untilPasses, type Pace } from '../helpers/until.js';
import { tmuxEnv } from '../helpers/test-env.js';
import { endCockpits } from '../helpers/cockpit-servers.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(ROOT, 'dist/src/cli.js');
const hasTmux = spawnSync('tmux', ['-V']).status === 0;
const server = `tai-keys-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
const dir = mkdtempSync(join(tmpdir(), 'tai-keys-'));
/** The tmux server's whole environment (test/helpers/test-env.ts): nothing of the caller's. */
const ENV = tmuxEnv(dir);

const tmux = (...args: string[]): string => execFileSync('tmux', ['-L', server, '-f', '/dev/null', ...args], { encoding: 'utf8', env: ENV });
const screen = (): string[] => tmux('capture-pane', '-p', '-t', 'k').split('\n');
const text = (): string => screen().join('\n');
/** The main pane's part of the screen (left of the separator at 120x40: 66 columns). */
const mainText = (): string => screen().map((r) => [...r].slice(0, 66).join('')).join('\n');
const keys = (...k: string[]): void => void tmux('send-keys', '-t', 'k', ...k);
const type = (s: string): void => void tmux('send-keys', '-t', 'k', '-l', s);
/** Raw bytes into tai's terminal, as the outer terminal sends a mouse report. */
const bytes = (s: string): void => void tmux('send-keys', '-t', 'k', '-H', ...[...s].map((c) => c.charCodeAt(0).toString(16)));
const PREFIX = 'C-]';
const TMUX: Pace = { timeout: 20_000, interval: 100 };

/** Starts tai around a plain bash in the session and waits for its prompt in the main pane. */
async function startTai(args = ''): Promise<void> {
  type(`clear; node ${CLI} ${args} -- bash --norc --noprofile; echo TAI-EXIT=$?\r`);
  await untilPasses(() => expect(tmux('display-message', '-p', '-t', 'k', '#{alternate_on}').trim()).toBe('1'), TMUX);
  type("PS1='in$ '\r");
  await untilPasses(() => expect(screen().some((r) => r.startsWith('in$'))).toBe(true), TMUX);
}

/** Leaves tai from its main pane and waits for the outer shell. */
async function endTai(): Promise<void> {
  type('exit\r');
  await untilPasses(() => expect(text()).toContain('TAI-EXIT='), TMUX);
}

describe.skipIf(!hasTmux)('keys and the screen in tmux', () => {
  beforeAll(() => {
    if (!existsSync(CLI)) execFileSync('npx', ['tsc', '-p', '.'], { cwd: ROOT, stdio: 'ignore' });
    mkdirSync(join(dir, 'run'), { mode: 0o700 });
    tmux('new-session', '-d', '-s', 'k', '-x', '120', '-y', '40', 'bash --norc --noprofile');
    tmux('set-option', '-t', 'k', 'status', 'off');
  }, 120_000);

  beforeEach(() => {
    tmux('resize-window', '-t', 'k', '-x', '120', '-y', '40');
  });

  afterAll(async () => {
    spawnSync('tmux', ['-L', server, 'kill-server'], { env: ENV });
    await endCockpits({ XDG_RUNTIME_DIR: join(dir, 'run') }); // servers outlive their terminals: end the ones this file started
    rmSync(dir, { recursive: true, force: true, maxRetries: 10 }); // a shell killed with its server may still be writing there
  });

  it('returns a pane scrolled back by the wheel to the live screen at the first key, and hands the key on', async () => {
    await startTai();
    type('for i in $(seq 1 120); do echo "row $i"; done\r');
    await untilPasses(() => expect(mainText()).toContain('row 120'), TMUX);
    bytes('\x1b[<64;10;10M\x1b[<64;10;10M');
    await untilPasses(() => expect(screen()[0]).toContain('any key returns'), TMUX);
    type('echo yz-$((6*7))\r');
    await untilPasses(() => expect(mainText()).toMatch(/^yz-42 *$/m), TMUX);
    expect(screen()[0]).not.toContain('scrolled back');
    // q only returns: it reaches nobody.
    bytes('\x1b[<64;10;10M');
    await untilPasses(() => expect(screen()[0]).toContain('any key returns'), TMUX);
    type('q');
    await untilPasses(() => expect(screen()[0]).not.toContain('scrolled back'), TMUX);
    type('echo after-$((6*7))\r');
    await untilPasses(() => expect(mainText()).toMatch(/^in\$ echo after-\$\(\(6\*7\)\)$/m), TMUX);
    await endTai();
  }, 60_000);

  it('gives the focus back where it was after a finished agent opened from the list is un-zoomed, and its panel says it has ended', async () => {
    await startTai();
    type(`node ${CLI} spawn --label quick -- echo hi; echo SPAWNED=$?\r`);
    await untilPasses(() => expect(mainText()).toContain('SPAWNED=0'), TMUX);
    keys(PREFIX, 'w');
    await untilPasses(() => expect(screen()[0]).toMatch(/^ tai agents/), TMUX);
    await untilPasses(() => expect(text()).toMatch(/✓ #1 {2}quick · done/), TMUX);
    keys('Enter');
    await untilPasses(() => expect(screen()[0]).toMatch(/^ ✓ quick · done/), TMUX);
    keys(PREFIX, 'z');
    await untilPasses(() => expect(screen()[0]).toMatch(/│ ✓ quick · done/), TMUX);
    type('echo back-$((6*7))\r');
    await untilPasses(() => expect(mainText()).toMatch(/^back-42 *$/m), TMUX);
    // Typed into the ended agent's panel: its line says it has ended and how to start anew; nothing is sent.
    keys(PREFIX, 'n');
    type('hi');
    await untilPasses(() => expect(text()).toContain('✗ ended (done) · start anew: tai spawn, prefix @'), TMUX);
    keys('Escape');
    await untilPasses(() => expect(text()).not.toContain('✗ ended'), TMUX);
    keys(PREFIX, 'n');
    await endTai();
  }, 60_000);

  it('says on the status line that a pane is zoomed, and reflows what the main program wrote while zoomed when it is un-zoomed', async () => {
    await startTai('demo --agents silent');
    await untilPasses(() => expect(screen()[0]).toContain('demo silent #1'), TMUX);
    keys(PREFIX, 'z');
    await untilPasses(() => expect(screen()[39]).toContain('zoomed: main pane (C-] z)'), TMUX);
    type(`echo ${'w'.repeat(50)}$((6*7))${'v'.repeat(40)}\r`);
    await untilPasses(() => expect(text()).toMatch(new RegExp(`^${'w'.repeat(50)}42${'v'.repeat(40)} *$`, 'm')), TMUX);
    keys(PREFIX, 'z');
    await untilPasses(() => expect(screen()[0]).toContain('demo silent #1'), TMUX);
    expect(screen()[39]).not.toContain('zoomed');
    // The 92 characters are wrapped at the 66 columns of the main pane, none lost.
    await untilPasses(() => expect(mainText()).toContain(`${'w'.repeat(50)}42${'v'.repeat(14)}\n${'v'.repeat(26)}`), TMUX);
    await endTai();
  }, 60_000);

  it('asks before prefix + x cancels a running agent, then points the agent list to tai logs; prefix + D off a lane says why', async () => {
    await startTai('demo --agents silent');
    // Its usage reported: its process is up and handles SIGTERM (a signal before that kills it unlogged).
    await untilPasses(() => expect(screen()[0]).toMatch(/│ ● demo silent #1 · running .* tok/), TMUX);
    keys(PREFIX, 'n');
    // Not a lane: the refusal is on the status line until the next key.
    keys(PREFIX, 'D');
    await untilPasses(() => expect(screen()[39]).toContain("pane 1 is not a lane's panel"), TMUX);
    keys(PREFIX, 'x');
    await untilPasses(() => expect(screen()[39]).toContain('cancel #1 demo silent #1? y cancels it, any other key keeps it'), TMUX);
    expect(screen()[39]).not.toContain("not a lane's panel");
    keys('n'); // any other key keeps it
    await untilPasses(() => expect(screen()[39]).toContain('C-] ? help'), TMUX);
    expect(screen()[0]).toMatch(/│ ● demo silent #1 · running/);
    keys(PREFIX, 'x');
    await untilPasses(() => expect(screen()[39]).toContain('y cancels it'), TMUX);
    keys('y');
    await untilPasses(() => expect(screen()[39]).toMatch(/│ 0 running · 1 cancelled /), TMUX);
    expect(text()).not.toContain('demo silent #1 · ');
    keys(PREFIX, 'w');
    await untilPasses(() => expect(screen()[1]).toMatch(/⊘ #1 {2}demo silent #1 · cancelled · \d+s · its transcript: tai logs 1/), TMUX);
    keys('q');
    await endTai();
  }, 60_000);

  it('shows the whole help on a 60x20 terminal by scrolling, with the answer keys and what keys typed into a panel do', async () => {
    tmux('resize-window', '-t', 'k', '-x', '60', '-y', '20');
    await startTai();
    const rows = (): string[] => screen().slice(0, 20);
    keys(PREFIX, '?');
    await untilPasses(() => expect(rows()[0]).toMatch(/^ tai keys: press C-\], then · 1-18 of \d+ · Space: more/), TMUX);
    const seen = new Set<string>(rows().slice(1));
    // A page at a time until the end: the title says which lines are shown.
    for (let page = 0; page < 5 && rows()[0].includes('more'); page++) {
      const before = rows()[0];
      keys('Space');
      await untilPasses(() => expect(rows()[0]).not.toBe(before), TMUX);
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
    await untilPasses(() => expect(rows()[0]).not.toContain('tai keys'), TMUX);
    await endTai();
  }, 60_000);
});
