import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_PREFIX, KeyScanner } from '../../src/core/input/keys.js';
import { parseRow } from '../../src/io/terminal/sgr-cells.js';
import { dispatch } from '../../store/dispatch.js';
import { mountCockpit } from './harness.js';

type Mounted = ReturnType<typeof mountCockpit>;
let m: Mounted | undefined;
afterEach(() => {
  m?.unmount();
  m = undefined;
});

const T0 = 1_000_000;

/** Column positions of `ch` in a row. */
const columnsOf = (row: string, ch: string) => [...row].flatMap((c, i) => (c === ch ? [i] : []));

describe('Cockpit layout', () => {
  it('draws the main pane full width when there are no panels', async () => {
    m = mountCockpit(120, 40);
    await m.main.parsed();
    m.main.write('hello from the shell');
    await vi.waitFor(() => expect(m!.text()[0]).toContain('hello from the shell'));
    expect(m.text()).toHaveLength(40);
    expect(m.text().slice(0, 39).every((r) => !r.includes('│'))).toBe(true);
    expect(m.text()[39]).toMatch(/^ tai 42 sh │ 0 running +C-\] \? help $/); // the status line's row
  });

  // The original measured its layout on the whole window (docs/spec.md, "Layout"); the status line takes the last row, so the panes share 39 (docs/cockpit.md).
  it('gives one agent on 120x40 a 53x39 pane beside a 66-column main pane (docs/spec.md, "Layout", less the status line)', async () => {
    m = mountCockpit(120, 40);
    m.board.getState().open({ label: 'agent #1' }, T0);
    await vi.waitFor(() => expect(m!.text()[0]).toContain('agent #1'));
    const rows = m.text();
    expect(rows).toHaveLength(40);
    for (const r of rows.slice(0, 39)) expect(columnsOf(r, '│')).toEqual([66]);
    expect(rows[0].slice(67)).toMatch(/^ ● agent #1 · running · 0s/);
    const view = m.board.getState().panels[0];
    expect([view.cols, view.rows + 1]).toEqual([53, 39]);
  });

  it('stacks three agents 13, 12 and 12 rows high in the 39 rows above the status line, a separator between each two', async () => {
    m = mountCockpit(120, 40);
    for (const n of [1, 2, 3]) m.board.getState().open({ label: `agent #${n}` }, T0);
    await vi.waitFor(() => expect(m!.text()[27]).toContain('agent #3'));
    const rows = m.text();
    const headers = rows.flatMap((r, y) => (/agent #\d/.test(r) ? [y] : []));
    const seps = rows.flatMap((r, y) => (r.slice(67).startsWith('─'.repeat(53)) ? [y] : []));
    expect(headers).toEqual([0, 14, 27]);
    expect(seps).toEqual([13, 26]);
  });

  it('shows six agents and gives the seventh no panel, with its reason', async () => {
    m = mountCockpit(120, 40);
    for (let n = 1; n <= 7; n++) m.board.getState().open({ label: `agent #${n}` }, T0);
    await vi.waitFor(() => expect(m!.text().join('\n')).toContain('agent #6'));
    expect(m.text().join('\n')).not.toContain('agent #7');
    expect(m.text().find((r) => r.includes('agent #6'))).toMatch(/ \+1 hidden $/);
    const seventh = m.board.getState().panels[6];
    expect(seventh.shown).toBe(false);
    expect(seventh.reason).toBeTruthy();
  });

  it('streams an agent\'s text into its panel below the header', async () => {
    m = mountCockpit(120, 40);
    const id = m.board.getState().open({ label: 'writer' }, T0);
    m.board.getState().emit(id, { type: 'text', text: 'streamed words arrive here\n' }, T0 + 10);
    m.board.getState().flush(T0 + 1000);
    await vi.waitFor(() => expect(m!.text().slice(1).some((r) => r.slice(67).startsWith('streamed words arrive here'))).toBe(true));
  });
});

describe('Cockpit headers', () => {
  it('colours each header by its state: running blue, idle orange, done green, failed red, cancelled grey', async () => {
    m = mountCockpit(120, 40);
    const s = () => m!.board.getState();
    const run = s().open({ label: 'runs' }, T0);
    const idle = s().open({ label: 'sleeps' }, T0);
    const ok = s().open({ label: 'succeeds' }, T0);
    const bad = s().open({ label: 'breaks' }, T0);
    const stop = s().open({ label: 'stops' }, T0);
    s().finish(ok, 'done', 'fine', T0 + 45_000);
    s().finish(bad, 'failed', 'broken', T0 + 45_000);
    s().setCancel(stop, () => {});
    s().cancel(stop, 'asked', T0 + 45_000);
    s().finish(stop, 'cancelled', 'stopped', T0 + 45_001);
    s().emit(run, { type: 'text', text: 'x' }, T0 + 59_000);
    s().tick(T0 + 61_000);
    /** The canonical style of the header's label cell. */
    const styleOf = (label: string) => {
      const row = m!.frame().split('\n').find((r) => r.includes(label)) ?? '';
      const cells = parseRow(row, 120);
      return cells.styles[stripFrame(row).indexOf(label)];
    };
    await vi.waitFor(() => expect(styleOf('sleeps')).toBe('1;38;5;208'));
    expect(styleOf('runs')).toBe('1;34');
    expect(styleOf('succeeds')).toBe('1;32');
    expect(styleOf('breaks')).toBe('1;31');
    expect(styleOf('stops')).toBe('1;90');
    expect(m.text().join('\n')).toContain('◌ sleeps · idle');
    expect(s().panels.find((p) => p.id === idle)?.state).toBe('idle');
  });
});

function stripFrame(s: string): string {
  return s.replace(/\x1b\[[0-9;]*m/g, '');
}

const press = (mm: Mounted, keys: string) => {
  const scanner = new KeyScanner(DEFAULT_PREFIX);
  for (const a of scanner.push(keys)) if (a.kind === 'command') void dispatch(a.command, { board: mm.board, now: T0 + 5 });
};

describe('Cockpit keyboard', () => {
  it('moves focus to the next panel and inverts its header', async () => {
    m = mountCockpit(120, 40);
    m.board.getState().open({ label: 'first' }, T0);
    m.board.getState().open({ label: 'second' }, T0);
    press(m, `${DEFAULT_PREFIX}n`);
    expect(m.board.getState().focus).toBe(1);
    await vi.waitFor(() => expect(parseRow(m!.frame().split('\n')[0], 120).styles[70]).toBe('1;7;34'));
    press(m, `${DEFAULT_PREFIX}\x1b[B`);
    expect(m.board.getState().focus).toBe(2);
    press(m, `${DEFAULT_PREFIX}\x1b[D`);
    expect(m.board.getState().focus).toBe('main');
  });

  it('closes the focused panel, which cancels its agent and gives its place back', async () => {
    m = mountCockpit(120, 40);
    const soft = vi.fn();
    const id = m.board.getState().open({ label: 'doomed' }, T0);
    m.board.getState().open({ label: 'survivor' }, T0);
    m.board.getState().setCancel(id, soft);
    press(m, `${DEFAULT_PREFIX}n${DEFAULT_PREFIX}x`);
    expect(soft).toHaveBeenCalledWith('closed by the user');
    await vi.waitFor(() => expect(m!.text()[0].slice(67)).toContain('survivor'));
    expect(m.text().join('\n')).not.toContain('doomed');
    m.board.getState().finish(id, 'cancelled', 'stopped', T0 + 10);
    expect(m.board.getState().status(T0 + 10).agents.find((a) => a.id === id)?.state).toBe('cancelled');
  });

  it('zooms the focused panel to the whole window and back', async () => {
    m = mountCockpit(120, 40);
    m.board.getState().open({ label: 'zoomer' }, T0);
    press(m, `${DEFAULT_PREFIX}n${DEFAULT_PREFIX}z`);
    await vi.waitFor(() => expect(m!.text()[0]).toMatch(/^ ● zoomer · running/));
    expect(m.text().slice(0, 39).every((r) => !r.includes('│'))).toBe(true);
    expect(m.board.getState().panels[0].cols).toBe(120);
    press(m, `${DEFAULT_PREFIX}z`);
    await vi.waitFor(() => expect(columnsOf(m!.text()[0], '│')).toEqual([66]));
  });

  it('closes the agent list on q and hands the keys after it in the same chunk to the main pane', () => {
    m = mountCockpit(100, 30);
    m.type(`${DEFAULT_PREFIX}w`);
    expect(m.list.getState().open).toBe(true);
    m.type('qexit\r'); // a loaded machine reads a quick typist's keys as one chunk
    expect(m.list.getState().open).toBe(false);
    expect(m.typed.join('')).toBe('exit\r');
  });

  it('shows the help overlay and closes it on the next key', async () => {
    m = mountCockpit(100, 30);
    press(m, `${DEFAULT_PREFIX}?`);
    await vi.waitFor(() => expect(m!.text()[0]).toContain('tai keys: press C-]'));
    expect(m.text().join('\n')).toContain('close the focused panel; a running agent asks first (y cancels it)');
    m.board.getState().helpToggle();
    await vi.waitFor(() => expect(m!.text()[0]).not.toContain('tai keys'));
  });

  // These mount without the status line: the harness does not size the main screen to the main pane (main-pane.ts does).
  it('scrolls the main pane back a page and returns', async () => {
    m = mountCockpit(60, 10, { statusLine: false });
    m.main.write(Array.from({ length: 40 }, (_, i) => `line ${i}`).join('\r\n'));
    await m.main.parsed();
    await vi.waitFor(() => expect(m!.text()[9]).toContain('line 39'));
    press(m, `${DEFAULT_PREFIX}\x1b[5~`);
    await vi.waitFor(() => expect(m!.text()[0]).toContain('scrolled back 8 lines'));
    expect(m.text()[9]).toContain('line 31');
  });

  it('never scrolls the main pane back past the lines it keeps, and PageDown moves at once', async () => {
    m = mountCockpit(60, 10, { statusLine: false });
    m.main.write(Array.from({ length: 40 }, (_, i) => `line ${i}`).join('\r\n'));
    await m.main.parsed();
    await vi.waitFor(() => expect(m!.text()[9]).toContain('line 39'));
    for (let i = 0; i < 7; i++) press(m, `${DEFAULT_PREFIX}\x1b[5~`);
    await vi.waitFor(() => expect(m!.text()[0]).toContain('scrolled back 30 lines'));
    expect(m.board.getState().scrollback).toBe(30);
    press(m, `${DEFAULT_PREFIX}\x1b[6~`);
    await vi.waitFor(() => expect(m!.text()[0]).toContain('scrolled back 22 lines'));
  });

  it('never scrolls a panel back past the lines its screen keeps', async () => {
    m = mountCockpit(100, 20);
    const id = m.board.getState().open({ label: 'agent #1' }, T0);
    m.board.getState().write(id, Array.from({ length: 60 }, (_, i) => `out ${i}\r\n`).join(''), T0);
    m.board.getState().flush(T0 + 25);
    m.board.getState().focusSet(id);
    await vi.waitFor(() => expect(m!.text().join('\n')).toContain('out 59'));
    for (let i = 0; i < 20; i++) press(m, `${DEFAULT_PREFIX}\x1b[5~`);
    await vi.waitFor(() => expect(m!.board.getState().scrollback).toBeGreaterThan(0));
    const back = m.board.getState().scrollback;
    expect(back).toBeLessThanOrEqual(60); // unbounded, 20 pages of 17 rows would be 340
    await vi.waitFor(() => expect(m!.text().join('\n')).toContain(`↑${back}`));
    press(m, `${DEFAULT_PREFIX}\x1b[5~`);
    expect(m.board.getState().scrollback).toBe(back);
  });
});
