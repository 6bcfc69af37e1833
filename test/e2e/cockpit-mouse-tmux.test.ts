/**
 * The mouse as a person uses it, in a real tmux (a private server, always
 * killed): the built `tai` with a main program that asks for the mouse, SGR
 * reports sent as raw bytes the way a terminal sends them. The program gets
 * clicks over its pane in its own coordinates through the real pty; a click
 * over a panel focuses it and never reaches the program. And the main
 * program's title becomes the terminal's, made safe, and the terminal's own
 * title is back after exit. And copy mode: a search back through the main
 * pane's scrollback and a selection that lands in tmux's paste buffer by
 * OSC 52.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { untilPasses, type Pace } from '../helpers/until.js';
import { endCockpits } from '../helpers/cockpit-servers.js';
import { testEnv } from '../helpers/test-env.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(ROOT, 'dist/src/cli.js');
const ECHO = join(ROOT, 'test/fixtures/mouse-echo.mjs');
const hasTmux = spawnSync('tmux', ['-V']).status === 0;
const server = `tai-mouse-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
const dir = mkdtempSync(join(tmpdir(), 'tai-mouse-'));

const tmux = (...args: string[]): string => execFileSync('tmux', ['-L', server, '-f', '/dev/null', ...args], { encoding: 'utf8', env: testEnv() });
const screen = (): string[] => tmux('capture-pane', '-p', '-t', 'm').split('\n').slice(0, 40);
const mainText = (): string => screen().map((r) => [...r].slice(0, 66).join('')).join('\n');
/** Raw bytes into tai's terminal, as the outer terminal would send a mouse report. */
const bytes = (s: string): void => void tmux('send-keys', '-t', 'm', '-H', ...[...s].map((c) => c.charCodeAt(0).toString(16)));
const TMUX: Pace = { timeout: 20_000, interval: 100 };

describe.skipIf(!hasTmux)('the mouse in tmux', () => {
  beforeAll(() => {
    if (!existsSync(CLI)) execFileSync('npx', ['tsc', '-p', '.'], { cwd: ROOT, stdio: 'ignore' });
    mkdirSync(join(dir, 'run'), { mode: 0o700 });
    tmux(
      'new-session', '-d', '-s', 'm', '-x', '120', '-y', '40',
      '-e', 'NODE_ENV=production',
      '-e', `XDG_STATE_HOME=${join(dir, 'state')}`,
      '-e', `XDG_RUNTIME_DIR=${join(dir, 'run')}`,
      'bash --norc --noprofile',
    );
    tmux('set-option', '-t', 'm', 'status', 'off');
  }, 120_000);

  afterAll(async () => {
    spawnSync('tmux', ['-L', server, 'kill-server'], { env: testEnv() });
    await endCockpits({ XDG_RUNTIME_DIR: join(dir, 'run') }); // servers outlive their terminals: end the ones this file started
    rmSync(dir, { recursive: true, force: true });
  });

  it('asks the terminal for the mouse, hands the main program its clicks through the pty, and keeps panel clicks', async () => {
    tmux('send-keys', '-t', 'm', `node ${CLI} demo --agents silent -- node ${ECHO} sgr; echo TAI-EXIT=$?`, 'Enter');
    await untilPasses(() => expect(mainText()).toContain('READY'), TMUX);
    await untilPasses(() => expect(screen()[0]).toContain('demo silent #1'), TMUX);
    // tai asked tmux (its terminal) for SGR mouse reports.
    expect(tmux('display-message', '-p', '-t', 'm', '#{mouse_any_flag} #{mouse_sgr_flag}').trim()).toBe('1 1');

    bytes('\x1b[<0;10;5M\x1b[<0;10;5m');
    // Press and release, in the pane's own coordinates (one chunk or two, as the pty delivers them).
    await untilPasses(() => expect(mainText().replace(/\s*\nGOT /g, '')).toContain('READY^[[<0;10;5M^[[<0;10;5m'), TMUX);

    // A click on the panel focuses it: its header is drawn inverted, and the program got nothing.
    bytes('\x1b[<0;90;12M\x1b[<0;90;12m');
    await untilPasses(() => expect(tmux('capture-pane', '-p', '-e', '-t', 'm').split('\n')[0]).toMatch(/\x1b\[[0-9;]*7m(\x1b\[[0-9;]*m)* ● demo silent #1/), TMUX);
    bytes('x');
    expect(mainText()).not.toContain('GOT x');
    expect(mainText()).not.toContain('90;12');

    // A click back in the main pane focuses it and reaches the program; keys follow.
    bytes('\x1b[<0;3;20M');
    await untilPasses(() => expect(mainText()).toContain('GOT ^[[<0;3;20M'), TMUX);
    bytes('q');
    await untilPasses(() => expect(screen().join('\n')).toContain('TAI-EXIT=0'), TMUX);
    expect(tmux('display-message', '-p', '-t', 'm', '#{mouse_any_flag}').trim()).toBe('0');
  }, 60_000);

  it('asks the terminal for every motion while the main program does (DECSET 1003), and hands it the motion', async () => {
    tmux('send-keys', '-t', 'm', `clear; node ${CLI} demo --agents silent -- node ${ECHO} any sgr; echo TAI-EXIT=$?`, 'Enter');
    await untilPasses(() => expect(mainText()).toContain('READY'), TMUX);
    await untilPasses(() => expect(tmux('display-message', '-p', '-t', 'm', '#{mouse_all_flag} #{mouse_sgr_flag}').trim()).toBe('1 1'), TMUX);
    bytes('\x1b[<35;12;6M');
    await untilPasses(() => expect(mainText()).toContain('GOT ^[[<35;12;6M'), TMUX);
    bytes('q');
    await untilPasses(() => expect(screen().join('\n')).toContain('TAI-EXIT=0'), TMUX);
    expect(tmux('display-message', '-p', '-t', 'm', '#{mouse_all_flag} #{mouse_any_flag}').trim()).toBe('0 0');
  }, 60_000);

  it('sets the terminal\'s title from the main program\'s, bounded, and gives the old one back at exit', async () => {
    const title = (): string => tmux('display-message', '-p', '-t', 'm', '#{pane_title}').trim();
    const type = (line: string): void => void tmux('send-keys', '-t', 'm', '-l', line);
    type("printf '\\033]2;OUTER-TITLE\\033\\\\'; clear\r");
    await untilPasses(() => expect(title()).toBe('OUTER-TITLE'), TMUX);
    type(`node ${CLI} demo --agents silent -- bash --norc --noprofile; echo TAI-EXIT=$?\r`);
    await untilPasses(() => expect(screen()[0]).toContain('demo silent #1'), TMUX);
    type("printf '\\033]2;vim notes.md\\033\\\\'\r");
    await untilPasses(() => expect(title()).toBe('vim notes.md'), TMUX);
    // A title past TITLE_MAX is cut (the controls inside one are dropped by the screen's parser already).
    type("printf '\\033]2;%s\\033\\\\' $(printf 'y%.0s' {1..300})\r");
    await untilPasses(() => expect(title()).toBe(`${'y'.repeat(127)}…`), TMUX);
    type('exit\r');
    await untilPasses(() => expect(screen().join('\n')).toContain('TAI-EXIT=0'), TMUX);
    expect(title()).toBe('OUTER-TITLE');
  }, 60_000);

  it('finds text back in the main pane with copy mode and copies a selection to the clipboard (OSC 52)', async () => {
    tmux('set-option', '-s', 'set-clipboard', 'on');
    const type = (line: string): void => void tmux('send-keys', '-t', 'm', '-l', line);
    type(`clear; node ${CLI} demo --agents silent -- bash --norc --noprofile; echo TAI-EXIT=$?\r`);
    await untilPasses(() => expect(screen()[0]).toContain('demo silent #1'), TMUX);
    type("PS1='$ '; for i in $(seq 1 200); do echo \"row $i $([ $i = 37 ] && echo MARKER-FOUND)\"; done\r");
    await untilPasses(() => expect(mainText()).toContain('row 200'), TMUX);
    bytes('\x1d[');
    type('/marker-found\r');
    // The match is scrolled into view, just under the top row (which says the pane is scrolled back).
    await untilPasses(() => expect(screen()[1]).toMatch(/^row 37 MARKER-FOUND/), TMUX);
    expect(screen()[0]).toMatch(/\[\d+\/\d+\] +│/);
    type('0v$y');
    await untilPasses(() => expect(tmux('show-buffer').trim()).toBe('row 37 MARKER-FOUND'), TMUX);
    await untilPasses(() => expect(mainText()).toContain('row 200'), TMUX); // back at the bottom
    type('exit\r');
    await untilPasses(() => expect(screen().join('\n')).toContain('TAI-EXIT=0'), TMUX);
  }, 60_000);
});
