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
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEnv } from '../helpers/test-env.js';
import { TAI_CLI as CLI } from '../helpers/tai-cli.js';
import { buildCli, hasTmux, tmuxFolder, TmuxServer, type TmuxSession } from '../helpers/tmux-session.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ECHO = join(ROOT, 'test/fixtures/mouse-echo.mjs');
const dir = tmuxFolder('tai-mouse-');
/** The tmux server's whole environment (test/helpers/test-env.ts): nothing of the caller's. */
const server = new TmuxServer('tai-mouse', testEnv());
let m: TmuxSession;

const screen = (): string[] => m.screen();
/** The main pane's part of the screen (left of the separator at 120x40: 66 columns). */
const mainText = (): string => m.columns(0, 66);
/** Raw bytes into tai's terminal, as the outer terminal would send a mouse report. */
const bytes = (s: string): void => m.bytes(s);

describe.skipIf(!hasTmux)('the mouse in tmux', () => {
  beforeAll(() => {
    buildCli();
    m = server.start('m', { env: { NODE_ENV: 'production', XDG_STATE_HOME: join(dir, 'state'), XDG_RUNTIME_DIR: join(dir, 'run') } });
  }, 120_000);

  afterAll(() => server.end(dir));

  it('asks the terminal for the mouse, hands the main program its clicks through the pty, and keeps panel clicks', async () => {
    m.keys(`node ${CLI} demo --agents silent -- node ${ECHO} sgr; echo TAI-EXIT=$?`, 'Enter');
    await m.until(() => expect(mainText()).toContain('READY'));
    await m.until(() => expect(screen()[0]).toContain('demo silent #1'));
    // tai asked tmux (its terminal) for SGR mouse reports.
    expect(m.display('#{mouse_any_flag} #{mouse_sgr_flag}')).toBe('1 1');

    bytes('\x1b[<0;10;5M\x1b[<0;10;5m');
    // Press and release, in the pane's own coordinates (one chunk or two, as the pty delivers them).
    await m.until(() => expect(mainText().replace(/\s*\nGOT /g, '')).toContain('READY^[[<0;10;5M^[[<0;10;5m'));

    // A click on the panel focuses it: its header is drawn inverted, and the program got nothing.
    bytes('\x1b[<0;90;12M\x1b[<0;90;12m');
    await m.until(() => expect(m.sgr().split('\n')[0]).toMatch(/\x1b\[[0-9;]*7m(\x1b\[[0-9;]*m)* ● demo silent #1/));
    bytes('x');
    expect(mainText()).not.toContain('GOT x');
    expect(mainText()).not.toContain('90;12');

    // A click back in the main pane focuses it and reaches the program; keys follow.
    bytes('\x1b[<0;3;20M');
    await m.until(() => expect(mainText()).toContain('GOT ^[[<0;3;20M'));
    bytes('q');
    await m.until(() => expect(m.text()).toContain('TAI-EXIT=0'));
    expect(m.display('#{mouse_any_flag}')).toBe('0');
  }, 60_000);

  it('asks the terminal for every motion while the main program does (DECSET 1003), and hands it the motion', async () => {
    m.keys(`clear; node ${CLI} demo --agents silent -- node ${ECHO} any sgr; echo TAI-EXIT=$?`, 'Enter');
    await m.until(() => expect(mainText()).toContain('READY'));
    await m.until(() => expect(m.display('#{mouse_all_flag} #{mouse_sgr_flag}')).toBe('1 1'));
    bytes('\x1b[<35;12;6M');
    await m.until(() => expect(mainText()).toContain('GOT ^[[<35;12;6M'));
    bytes('q');
    await m.until(() => expect(m.text()).toContain('TAI-EXIT=0'));
    expect(m.display('#{mouse_all_flag} #{mouse_any_flag}')).toBe('0 0');
  }, 60_000);

  it('sets the terminal\'s title from the main program\'s, bounded, and gives the old one back at exit', async () => {
    const title = (): string => m.display('#{pane_title}');
    const type = (line: string): void => m.type(line);
    type("printf '\\033]2;OUTER-TITLE\\033\\\\'; clear\r");
    await m.until(() => expect(title()).toBe('OUTER-TITLE'));
    type(`node ${CLI} demo --agents silent -- bash --norc --noprofile; echo TAI-EXIT=$?\r`);
    await m.until(() => expect(screen()[0]).toContain('demo silent #1'));
    type("printf '\\033]2;vim notes.md\\033\\\\'\r");
    await m.until(() => expect(title()).toBe('vim notes.md'));
    // A title past TITLE_MAX is cut (the controls inside one are dropped by the screen's parser already).
    type("printf '\\033]2;%s\\033\\\\' $(printf 'y%.0s' {1..300})\r");
    await m.until(() => expect(title()).toBe(`${'y'.repeat(127)}…`));
    type('exit\r');
    await m.until(() => expect(m.text()).toContain('TAI-EXIT=0'));
    expect(title()).toBe('OUTER-TITLE');
  }, 60_000);

  it('finds text back in the main pane with copy mode and copies a selection to the clipboard (OSC 52)', async () => {
    server.tmux('set-option', '-s', 'set-clipboard', 'on');
    const type = (line: string): void => m.type(line);
    type(`clear; node ${CLI} demo --agents silent -- bash --norc --noprofile; echo TAI-EXIT=$?\r`);
    await m.until(() => expect(screen()[0]).toContain('demo silent #1'));
    type("PS1='$ '; for i in $(seq 1 200); do echo \"row $i $([ $i = 37 ] && echo MARKER-FOUND)\"; done\r");
    await m.until(() => expect(mainText()).toContain('row 200'));
    bytes('\x1d[');
    type('/marker-found\r');
    // The match is scrolled into view, just under the top row (which says the pane is scrolled back).
    await m.until(() => expect(screen()[1]).toMatch(/^row 37 MARKER-FOUND/));
    expect(screen()[0]).toMatch(/\[\d+\/\d+\] +│/);
    type('0v$y');
    await m.until(() => expect(server.tmux('show-buffer').trim()).toBe('row 37 MARKER-FOUND'));
    await m.until(() => expect(mainText()).toContain('row 200')); // back at the bottom
    type('exit\r');
    await m.until(() => expect(m.text()).toContain('TAI-EXIT=0'));
  }, 60_000);
});
