/**
 * The built `tai` in a real tmux session (a private server, always killed):
 * types into the shell, opens agents, checks the geometry of docs/spec.md,
 * "Layout" on 120x40, a coloured header, that closing a panel cancels its
 * agent, and that the normal screen is back after exit. Waits on conditions
 * read with capture-pane, never on time.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TAI_CLI as CLI } from '../helpers/tai-cli.js';
import { testEnv } from '../helpers/test-env.js';
import { buildCli, hasTmux, tmuxFolder, TmuxServer, type TmuxSession } from '../helpers/tmux-session.js';
import { runningCockpits } from '../../src/io/link/link-place.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dir = tmuxFolder('tai-e2e-');
const agentLog = join(dir, 'agents.log');
/** The tmux server's whole environment (test/helpers/test-env.ts): nothing of the caller's. */
const server = new TmuxServer('tai-e2e', testEnv());
let e2e: TmuxSession;

const screen = (): string[] => e2e.screen();
const keys = (...k: string[]): void => e2e.keys(...k);

/** Column positions of `ch` in a row (code points, which are cells here). */
const columnsOf = (row: string, ch: string): number[] => [...row].flatMap((c, i) => (c === ch ? [i] : []));
const headerRows = (rows: string[]): number[] => rows.flatMap((r, y) => (/demo silent #\d/.test(r) ? [y] : []));
/** True once every agent reported usage: its process is up and handles SIGTERM (a signal before that kills it unlogged). */
const agentsUp = (rows: string[]): boolean => rows.filter((r) => /demo silent #\d/.test(r)).every((r) => / tok/.test(r));
const cancelled = (): number => (existsSync(agentLog) ? readFileSync(agentLog, 'utf8').split('\n').filter((l) => l.startsWith('cancelled')).length : 0);

describe.skipIf(!hasTmux)('tai in tmux', () => {
  beforeAll(() => {
    // Built by `npm test` (tsc -p .) before vitest runs; built here only when missing.
    buildCli();
    // Its own state and socket folders: a test never touches the user's.
    e2e = server.start('e2e', {
      env: { DEMO_AGENT_LOG: agentLog, NODE_ENV: 'production', XDG_STATE_HOME: join(dir, 'state'), XDG_RUNTIME_DIR: join(dir, 'run') },
    });
  }, 120_000);

  afterAll(() => server.end(dir));

  it('runs the cockpit, lays it out as docs/spec.md, "Layout", cancels a closed agent and restores the screen', async () => {
    keys('PS1="outer$ "; clear; echo NORMAL-SCREEN-MARK', 'Enter');
    await e2e.until(() => expect(e2e.text()).toContain('NORMAL-SCREEN-MARK'));
    keys(`node ${CLI} demo --agents silent*3 -- bash --norc --noprofile; echo TAI-EXIT=$?`, 'Enter');

    // Three agents: the right column is 53 wide and its panels share the 39 rows above the status line: 13, 12 and 12 rows.
    await e2e.until(() => expect(headerRows(screen())).toEqual([0, 14, 27]));
    await e2e.until(() => expect(agentsUp(screen())).toBe(true));
    let rows = screen();
    for (const r of rows.slice(0, 39)) expect(columnsOf(r, '│')).toEqual([66]);
    expect(rows[39]).toMatch(/^ tai bash(-\d+)? │ 3 running │ tai cpu (\d+%|<1%|…) · \d+ MB +C-\] \? help$/); // the cockpit's name, made from its program's // capture-pane drops the trailing space
    expect([...rows[13]].slice(67).join('')).toBe('─'.repeat(53));
    expect([...rows[0]].slice(67).join('')).toMatch(/^ ● demo silent #1 · running · \d+s/);
    // The header is drawn in the colour of its state: running is blue (SGR 34).
    const sgrHeader = e2e.sgr().split('\n')[0];
    expect(sgrHeader).toMatch(/\x1b\[[0-9;]*34[0-9;]*m ● demo silent #1/);

    // Typing goes to the shell in the main pane.
    keys('PS1="inner$ "; echo typed-$((6*7))', 'Enter');
    await e2e.until(() => expect(screen().some((r) => [...r].slice(0, 66).join('').startsWith('typed-42'))).toBe(true));
    // Ctrl-C reaches the program in the pane, not tai.
    keys('sleep 30', 'Enter');
    await e2e.until(() => expect(screen().some((r) => r.startsWith('inner$ sleep 30'))).toBe(true));
    keys('C-c');
    await e2e.until(() => expect(screen().some((r) => r.startsWith('^C'))).toBe(true));
    keys('echo after-ctrl-c', 'Enter');
    await e2e.until(() => expect(screen().some((r) => r.startsWith('after-ctrl-c'))).toBe(true));

    // Close the first panel: its agent is cancelled, the column rebalances and the focus goes to the panel below.
    keys('C-]', 'n');
    keys('C-]', 'x', 'y'); // a running agent's panel asks first
    await e2e.until(() => expect(cancelled()).toBe(1));
    await e2e.until(() => expect(headerRows(screen())).toEqual([0, 20]));
    expect(e2e.sgr().split('\n')[0]).toMatch(/\x1b\[[0-9;]*7[0-9;]*m(\x1b\[[0-9;]*m)* ● demo silent #2/); // focused: inverted

    // Close the focused one: one agent gets the whole column, 53 x 39, beside a 66-column main pane.
    keys('C-]', 'x', 'y');
    await e2e.until(() => expect(cancelled()).toBe(2));
    await e2e.until(() => expect(headerRows(screen())).toEqual([0]));
    rows = screen();
    expect(rows).toHaveLength(40);
    for (const r of rows.slice(0, 39)) expect(columnsOf(r, '│')).toEqual([66]);
    expect(rows.every((r) => !r.includes('─'))).toBe(true);
    expect(rows[0]).toContain('demo silent #3');

    // The window follows the terminal: 80x24 and 300x90 keep the 55 % main pane (44 and 165 columns).
    const sized = (cols: number, rowsN: number, sep: number) => async () => {
      e2e.resize(cols, rowsN);
      await e2e.until(() => {
        const r = e2e.screen().slice(0, rowsN - 1);
        expect(r.every((row) => columnsOf(row, '│').join() === String(sep))).toBe(true);
        expect(r[0]).toContain('demo silent #3');
      });
    };
    await sized(80, 24, 44)();
    await sized(300, 90, 165)();
    await sized(120, 40, 66)();

    // Back to the main pane; the shell's exit ends tai with its code, the last agent is stopped.
    keys('C-]', 'h');
    keys('exit 7', 'Enter');
    await e2e.until(() => expect(e2e.text()).toContain('TAI-EXIT=7'));
    expect(cancelled()).toBe(3);
    expect(e2e.alternate()).toBe(false);
    const normal = e2e.text();
    expect(normal).toContain('NORMAL-SCREEN-MARK');
    expect(normal).not.toContain('demo silent');
  }, 120_000);

  it('starts a registered agent from the mention prompt: C-] @, Tab, Enter, a panel', async () => {
    const config = join(dir, 'config');
    mkdirSync(join(config, 'tai'), { recursive: true });
    const agent = join(ROOT, 'test/fixtures/command-agent.mjs');
    writeFileSync(join(config, 'tai', 'agents.json'), JSON.stringify({ agents: { echoer: { kind: 'command', command: [process.execPath, agent, '--stdin', '--linger'] } } }));
    keys('clear', 'Enter');
    keys(`XDG_CONFIG_HOME=${config} node ${CLI} -- bash --norc --noprofile; echo TAI-EXIT=$?`, 'Enter');
    await e2e.until(() => expect(e2e.alternate()).toBe(true));
    keys('PS1="inner$ "', 'Enter');
    await e2e.until(() => expect(screen().some((r) => r.startsWith('inner$'))).toBe(true));
    keys('C-]', '@');
    keys('-l', 'ech');
    keys('Tab');
    await e2e.until(() => expect(screen()[39]).toMatch(/^ mention ▸ @echoer$/));
    keys('-l', 'say hi from the prompt');
    await e2e.until(() => expect(screen()[39]).toContain(' mention ▸ @echoer say hi from the prompt'));
    keys('Enter');
    await e2e.until(() => expect(screen()[0]).toMatch(/│ ● @echoer · running/));
    await e2e.until(() => expect(screen().some((r) => [...r].slice(67).join('').startsWith('say hi from the prompt'))).toBe(true));
    expect(screen()[39]).not.toContain('mention ▸');
    // An unknown name is refused in the line; Esc closes it and keys reach the shell again.
    keys('C-]', '@');
    keys('-l', 'nobody hi');
    keys('Enter');
    await e2e.until(() => expect(screen()[39]).toContain('✗ no agent named "nobody"'));
    keys('Escape');
    await e2e.until(() => expect(screen()[39]).not.toContain('mention ▸'));
    keys('-l', 'echo typed-$((6*7))');
    keys('Enter');
    await e2e.until(() => expect(screen().some((r) => [...r].slice(0, 66).join('').startsWith('typed-42'))).toBe(true));
    keys('exit 3', 'Enter');
    await e2e.until(() => expect(e2e.text()).toContain('TAI-EXIT=3'));
  }, 120_000);

  it('refuses a dumb terminal and a prefix that is no key or Enter before taking the screen', async () => {
    for (const [env, code, said] of [
      ['TERM=dumb', 1, 'tai: this terminal (TERM=dumb) cannot show the cockpit; run it in a terminal emulator, or use tai spawn / TAI_ORCH_PANELS=0'],
      ['TAI_PREFIX=foo', 64, 'tai: TAI_PREFIX="foo" is not a key'],
      ['TAI_PREFIX=C-m', 64, 'tai: TAI_PREFIX="C-m" is Enter, which the main program needs'],
    ] as const) {
      keys('clear', 'Enter');
      await e2e.until(() => expect(e2e.text()).not.toContain('TAI-EXIT'));
      keys(`${env} node ${CLI} -- bash --norc --noprofile; echo TAI-EXIT=$?`, 'Enter');
      await e2e.until(() => expect(e2e.text()).toContain(`TAI-EXIT=${code}`));
      expect(screen().join('').replace(/\s+/g, ' ')).toContain(said);
      expect(e2e.alternate()).toBe(false);
    }
  }, 120_000);

  it('lists every agent with C-] w and opens a hidden one zoomed with Enter; NO_COLOR leaves tai uncoloured', async () => {
    keys('clear', 'Enter');
    await e2e.until(() => expect(e2e.text()).not.toContain('TAI-EXIT'));
    e2e.resize(40, 20); // too narrow for any panel: every agent is hidden
    keys(`NO_COLOR=1 node ${CLI} demo --agents silent*2 -- bash --norc --noprofile; echo TAI-EXIT=$?`, 'Enter');
    const rows20 = (): string[] => e2e.screen().slice(0, 20);
    await e2e.until(() => expect(rows20()[19]).toMatch(/2 running · \+2 hidden/));
    keys('C-]', 'w');
    await e2e.until(() => expect(rows20()[0]).toMatch(/^ tai agents/));
    // At 40 columns the rows are cut where ` · hidden (no room)` begins.
    expect(rows20()[1]).toMatch(/^ {2}● #1 {2}demo silent #1 · running · \d+s /);
    expect(rows20()[2]).toMatch(/^ {2}● #2 {2}demo silent #2 · running · \d+s /);
    keys('k', 'Enter');
    await e2e.until(() => expect(rows20()[0]).toMatch(/^ ● demo silent #1 · running/));
    // NO_COLOR: the focused header is bold and inverse, with no colour.
    expect(e2e.sgr().split('\n')[0]).toMatch(/^\x1b\[1;7m ● demo silent #1/);
    expect(e2e.sgr()).not.toMatch(/\x1b\[([0-9;]*;)?(3[0-8]|9[0-7])[;m]/); // no foreground colour anywhere (39 is the default)
    keys('C-]', 'z');
    keys('exit 5', 'Enter');
    await e2e.until(() => expect(e2e.text()).toContain('TAI-EXIT=5'));
    e2e.resize(120, 40);
  }, 120_000);

  it('SIGTERM to the server stops its agents and gives the client 143 on the normal screen; SIGHUP to the client only detaches it', async () => {
    keys('clear', 'Enter');
    await e2e.until(() => expect(e2e.text()).not.toContain('TAI-EXIT'));
    const before = cancelled();
    keys(`node ${CLI} demo -s signals --agents silent -- bash --norc --noprofile; echo TAI-EXIT=$?`, 'Enter');
    await e2e.until(() => expect(headerRows(screen())).toEqual([0]));
    await e2e.until(() => expect(agentsUp(screen())).toBe(true));
    expect(e2e.alternate()).toBe(true);
    const shell = e2e.display('#{pane_pid}');
    const client = execFileSync('pgrep', ['-P', shell], { encoding: 'utf8' }).trim().split('\n')[0] ?? '';
    // Its card in this file's own runtime folder: other runs on the machine may have a cockpit named signals too.
    const cockpit = String(runningCockpits(testEnv({ XDG_RUNTIME_DIR: join(dir, 'run') })).find((c) => c.name === 'signals')?.pid ?? '');
    // The terminal goes away: the client detaches, restoring what it can, and the cockpit goes on.
    execFileSync('kill', ['-HUP', client]);
    await e2e.until(() => expect(e2e.text()).toContain('TAI-EXIT=0'));
    expect(e2e.alternate()).toBe(false);
    expect(cancelled()).toBe(before);
    expect(() => process.kill(Number(cockpit), 0)).not.toThrow();
    // Back again, then the server is told to stop: its agent is stopped and the client returns 128 + 15.
    keys('clear', 'Enter');
    await e2e.until(() => expect(e2e.text()).not.toContain('TAI-EXIT'));
    keys(`node ${CLI} attach signals; echo TAI-EXIT=$?`, 'Enter');
    await e2e.until(() => expect(headerRows(screen())).toEqual([0]));
    execFileSync('kill', ['-TERM', cockpit]);
    await e2e.until(() => expect(e2e.text()).toContain('TAI-EXIT=143'));
    expect(e2e.alternate()).toBe(false);
    expect(cancelled()).toBe(before + 1);
  }, 120_000);

  it('restores the normal screen before printing an uncaught exception', async () => {
    keys('clear', 'Enter');
    await e2e.until(() => expect(e2e.text()).not.toContain('TAI-EXIT'));
    // The cockpit as a library, in a program that throws when told (SIGUSR2), once the test has seen it drawing.
    const lib = join(ROOT, 'dist/src/io/cockpit/cockpit.js');
    const script = `process.on('SIGUSR2', () => { throw new Error('boom-for-the-test'); }); import('${lib}').then((m) => m.startCockpit({ argv: ['bash', '--norc'] }))`;
    writeFileSync(join(dir, 'crash.mjs'), script);
    keys(`node ${join(dir, 'crash.mjs')}; echo TAI-EXIT=$?`, 'Enter');
    await e2e.until(() => expect(e2e.alternate()).toBe(true));
    await e2e.until(() => expect(screen()[39]).toContain('? help'));
    const shell = e2e.display('#{pane_pid}');
    const crash = execFileSync('pgrep', ['-P', shell], { encoding: 'utf8' }).trim().split('\n')[0] ?? '';
    execFileSync('kill', ['-USR2', crash]);
    await e2e.until(() => expect(e2e.text()).toContain('TAI-EXIT=1'));
    expect(e2e.alternate()).toBe(false);
    expect(e2e.text()).toContain('tai: Error: boom-for-the-test');
  }, 120_000);
});
