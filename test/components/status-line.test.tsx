import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_PREFIX } from '../../src/core/input/keys.js';
import { mountCockpit } from './harness.js';

const P = DEFAULT_PREFIX;
const T0 = 1_000_000;
let m: ReturnType<typeof mountCockpit> | undefined;
afterEach(() => {
  m?.unmount();
  m = undefined;
});
const bottom = (): string => m!.text().at(-1) ?? '';

describe('the status line', () => {
  it('says the cockpit, how many agents run, wait and are done, and the help key', async () => {
    m = mountCockpit(100, 30, { now: () => T0 + 1_000 });
    const s = m.board.getState;
    const a = s().open({ label: 'one' }, T0);
    s().open({ label: 'two' }, T0);
    const c = s().open({ label: 'three' }, T0);
    s().hold(c, 'network', T0);
    s().finish(a, 'done', 'ok', T0);
    await vi.waitFor(() => expect(bottom()).toMatch(/^ tai 42 sh │ 1 running · 1 waiting · 1 done {30,}C-\] \? help $/));
    expect(bottom()).toHaveLength(100);
  });

  it('names each ended agent by its state, as the agent list does, and counts no feed pane or diff view as an agent', async () => {
    m = mountCockpit(120, 30, { now: () => T0 + 1_000 });
    const s = m.board.getState;
    s().finish(s().open({ label: 'broke' }, T0), 'failed', 'exit 1', T0);
    s().finish(s().open({ label: 'slow' }, T0), 'timeout', 'wall clock', T0);
    s().open({ kind: 'feed', label: 'diff ⎇ fix', header: ' ⎇ fix · diff', state: 'idle' }, T0);
    await vi.waitFor(() => expect(bottom()).toMatch(/^ tai 42 sh │ 0 running · 1 failed · 1 timeout {20,}C-\] \? help $/));
    m.type(`${P}w`);
    await vi.waitFor(() => expect(m!.text()[1]).toContain('#1  broke · failed'));
  });

  it('counts first the agents that wait for the user to answer', async () => {
    m = mountCockpit(100, 30, { now: () => T0 + 1_000 });
    const s = m.board.getState;
    const a = s().open({ label: 'asker' }, T0);
    s().open({ label: 'worker' }, T0);
    s().ask(a, { tool: 'Edit README.md', toolKind: 'edit', detail: [], options: [{ id: 'y', name: 'Allow', kind: 'allow_once' }, { id: 'n', name: 'Reject', kind: 'reject_once' }] }, T0, () => {});
    await vi.waitFor(() => expect(bottom()).toMatch(/^ tai 42 sh │ 1 asks you · 1 running /));
  });

  it('lights a sign while the prefix waits, which lapses after the timeout so the next key goes to the pane', async () => {
    m = mountCockpit(100, 30);
    m.type(P);
    await vi.waitFor(() => expect(bottom()).toContain(' C-] … press a key (? help) '));
    expect(m.sign.getState().pending).toBe(true);
    expect(m.lapse()).toBe(true);
    await vi.waitFor(() => expect(bottom()).toContain(' C-] ? help '));
    m.type('x');
    expect(m.typed).toEqual(['x']);
  });

  it('keeps the prefix while its key comes in time, and drops the lapse timer', async () => {
    m = mountCockpit(100, 30);
    m.board.getState().open({ label: 'one' }, T0);
    m.type(P);
    m.type('n');
    expect(m.board.getState().focus).toBe(1);
    expect(m.lapse()).toBe(false);
    expect(m.sign.getState().pending).toBe(false);
  });

  it('still counts the agents when the window is too narrow for any panel', async () => {
    m = mountCockpit(40, 20);
    for (const label of ['a', 'b', 'c', 'd']) m.board.getState().open({ label }, T0);
    expect(m.board.getState().layout.panels).toEqual([]);
    await vi.waitFor(() => expect(bottom()).toContain(' 4 running · +4 hidden '));
  });

  it('gives the panes every row but the last: three agents in 40 rows have headers at 0, 14 and 27', async () => {
    m = mountCockpit(120, 40);
    for (const label of ['a', 'b', 'c']) m.board.getState().open({ label }, T0);
    expect(m.board.getState().layout.panels.map((p) => [p.rect.y, p.rect.rows])).toEqual([
      [0, 13],
      [14, 12],
      [27, 12],
    ]);
    expect(m.board.getState().layout.status).toEqual({ x: 0, y: 39, cols: 120, rows: 1 });
  });
});

describe('the agent list', () => {
  it('lists every agent with state, label and elapsed, and q closes it', async () => {
    m = mountCockpit(100, 30, { now: () => T0 + 65_000 });
    const s = m.board.getState;
    s().open({ label: 'writer' }, T0);
    const b = s().open({ label: 'reader' }, T0);
    s().finish(b, 'failed', 'boom', T0 + 5_000);
    m.type(`${P}w`);
    await vi.waitFor(() => expect(m!.text()[0]).toMatch(/^ tai agents · /));
    expect(m.text()[1].trimEnd()).toBe('  ● #1  writer · running · 1m05s');
    expect(m.text()[2].trimEnd()).toBe('  ✗ #2  reader · failed · 5s');
    // The last row is selected (inverse) when the main pane has focus.
    expect(m.frame().split('\n')[2]).toContain('\x1b[7m  ✗ #2');
    m.type('j'); // the last row stays selected: j goes nowhere past it
    expect(m.list.getState().selected).toBe(b);
    m.type('q');
    await vi.waitFor(() => expect(m!.text()[0]).not.toMatch(/tai agents/));
    expect(m.typed).toEqual([]);
  });

  it('opens a hidden agent zoomed over the window with Enter, and the keys move with k and j', async () => {
    m = mountCockpit(40, 20, { now: () => T0 + 1_000 });
    const s = m.board.getState;
    const a = s().open({ label: 'first', task: 'count sheep' }, T0);
    s().open({ label: 'second' }, T0);
    expect(s().layout.panels).toEqual([]); // too narrow: both hidden
    m.type(`${P}w`);
    m.type('k');
    await vi.waitFor(() => expect(m!.frame().split('\n')[1]).toContain('\x1b[7m  ● #1'));
    m.type('j');
    m.type('\x1b[A');
    m.type('\r');
    expect(m.list.getState().open).toBe(false);
    expect(s().focus).toBe(a);
    expect(s().layout.zoomed).toEqual({ id: a, rect: { x: 0, y: 0, cols: 40, rows: 19 } });
    await vi.waitFor(() => expect(m!.text()[0]).toContain('first · running'));
  });

  it('reopens a finished agent whose panel left, with its whole transcript, until it is closed', async () => {
    m = mountCockpit(100, 30, { now: () => T0 + 60_000 });
    const s = m.board.getState;
    const a = s().open({ label: 'gone', task: 'say goodbye' }, T0);
    s().emit(a, { type: 'text', text: 'goodbye, world\n' }, T0 + 1);
    s().flush(T0 + 100);
    s().finish(a, 'done', 'said', T0 + 200);
    s().flush(T0 + 300);
    s().tick(T0 + 60_000); // the linger is over: the panel leaves
    expect(s().panels).toEqual([]);
    m.type(`${P}w\r`);
    expect(s().layout.zoomed?.id).toBe(a);
    // Its text is formatted again into a new screen by the board's flushes: the cockpit's clock runs them on the wake the reveal arms.
    for (let i = 0; i < 50 && s().flush(T0 + 60_000 + i); i++);
    await vi.waitFor(() => expect(m!.text().join('\n')).toContain('goodbye, world'));
    s().tick(T0 + 200_000);
    expect(s().panels.map((p) => p.id)).toEqual([a]); // no second linger under the reader's eyes
    m.type(`${P}x`);
    expect(s().panels).toEqual([]);
  });

  it('points to tai logs when a finished agent\'s screen was not kept', async () => {
    m = mountCockpit(100, 30, { now: () => T0 });
    const s = m.board.getState;
    for (let i = 0; i < 10; i++) s().finish(s().open({ label: `job${i}` }, T0), 'done', 'ok', T0);
    s().tick(T0 + 60_000);
    m.type(`${P}w`);
    m.type('g\r');
    await vi.waitFor(() => expect(m!.text().at(-2)).toContain('#1: its screen was not kept (only the last 8 are): tai logs 1 prints its transcript'));
    expect(m.text()[1]).toMatch(/#1 {2}job0 · done · 0s · its transcript: tai logs 1 *$/);
    expect(m.list.getState().open).toBe(true);
  });
});
