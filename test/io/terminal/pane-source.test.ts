import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPaneSource, PANEL_FRAME_MS } from '../../../src/io/terminal/pane-source.js';
import { XtermScreen } from '../../../src/io/terminal/screen.js';
import { TermOutput } from '../../../src/io/terminal/term-output.js';
import { createBoard } from '../../../store/board.js';
import { parseRow } from '../../../src/io/terminal/sgr-cells.js';
import { headerRow } from '../../../src/core/panel/header-row.js';

// What these tests guard needs xterm.js parsing at once (xterm-internals.ts): on, whatever the caller's TAI_INTERNALS.
beforeAll(() => vi.stubEnv('TAI_INTERNALS', '1'));
afterAll(() => vi.unstubAllEnvs());

const T0 = 1_000_000;

/** A board, its screens and an output stage in overlay mode, as the cockpit wires them. */
function overlayRig(cols: number, rows: number) {
  const main = new XtermScreen(cols, rows);
  const source = createPaneSource(main, 0, Date.now, false);
  const board = createBoard({ createScreen: (c, r) => source.createScreen(c, r), cols, rows });
  source.attach(board);
  const shown = new XtermScreen(cols, rows);
  const out = new TermOutput((d) => shown.write(d), cols, rows);
  const text = async () => {
    await shown.parsed();
    return shown.text();
  };
  return { main, source, board, out, text };
}

describe('the overlay mode of the pane source', () => {
  it('leaves screens and headers out of the components and pastes them over the chrome', async () => {
    const r = overlayRig(120, 40);
    const id = r.board.getState().open({ label: 'agent' }, T0);
    r.board.getState().emit(id, { type: 'text', text: 'from the agent\n' }, T0 + 1);
    r.board.getState().flush(T0 + 100);
    r.main.write('$ from the shell');
    await r.main.parsed();
    await (r.board.getState().screenOf(id) as XtermScreen).parsed();
    expect(r.source.rows('main', 0)).toEqual([]);
    r.out.setChrome(`${' '.repeat(66)}│`);
    r.out.draw(r.source.overlays(), null);
    const rows = await r.text();
    expect(rows[0]).toMatch(/^\$ from the shell {50}│ ● agent · running · \d+s/);
    expect(rows.slice(1).some((row) => row.slice(67).startsWith('from the agent'))).toBe(true);
  });

  it('renders React only when the structure changes, not when a screen or a header does', async () => {
    const r = overlayRig(80, 24);
    const id = r.board.getState().open({ label: 'agent' }, T0);
    await vi.waitFor(() => expect(r.source.version()).toBe(1));
    const frames = vi.fn();
    r.source.onFrame(frames);
    r.board.getState().emit(id, { type: 'text', text: 'more text' }, T0 + 1);
    r.board.getState().flush(T0 + 100);
    await vi.waitFor(() => expect(frames).toHaveBeenCalled());
    expect(r.source.version()).toBe(1);
    r.board.getState().focusMove('next');
    await vi.waitFor(() => expect(r.source.version()).toBe(2));
    r.source.stop();
  });
});

describe('the frames of headers in overlay mode', () => {
  /** One agent's panel drawn once on a clock the test moves, then a spy on every frame after. */
  async function headerRig(frameMs: number) {
    const clock = { t: T0 };
    const main = new XtermScreen(80, 24);
    const source = createPaneSource(main, frameMs, () => clock.t, false);
    const board = createBoard({ createScreen: (c, r) => source.createScreen(c, r), cols: 80, rows: 24 });
    source.attach(board);
    const id = board.getState().open({ label: 'agent' }, T0);
    source.flushNow(); // the new structure's render
    await new Promise((resolve) => setImmediate(resolve)); // and its frame
    const frames = vi.fn();
    source.onFrame(frames);
    return { clock, main, source, board, id, frames };
  }

  it("draws a header's new text in the publish's own turn when its frame is due, and on the timer when it is not", async () => {
    const { clock, source, board, id, frames } = await headerRig(0);
    clock.t = T0 + 5_000;
    board.getState().tick(clock.t); // 5s in the header: only time moved
    expect(frames).toHaveBeenCalledTimes(1);
    expect(frames).toHaveBeenLastCalledWith([id]); // a frame of that header alone
    expect(source.version()).toBe(1); // no React render for it
    const heads = source.headerOverlays([id]);
    expect(heads).toHaveLength(1);
    expect(source.overlays()).toContain(heads![0]); // the very overlay a full frame pastes
    clock.t += PANEL_FRAME_MS - 10;
    board.getState().emit(id, { type: 'tool_start', name: 'Read', args: 'a.ts' }, clock.t);
    board.getState().flush(clock.t); // 1 tool in the header, too soon after the last frame
    expect(frames).toHaveBeenCalledTimes(1);
    await vi.waitFor(() => expect(frames).toHaveBeenCalledTimes(2));
    expect(frames).toHaveBeenLastCalledWith(); // on the timer: a full frame
    source.stop();
  });

  it("draws a flush's panel output and the header text it changed in one frame, not the header first and the output a frame later", async () => {
    const { clock, source, board, id, frames } = await headerRig(0);
    const seen: string[][] = [];
    source.onFrame(() => seen.push(source.overlays().flatMap((o) => o.rows.map((row) => row.chars.join('')))));
    clock.t = T0 + 5_000; // the frame is due
    board.getState().emit(id, { type: 'tool_start', name: 'Read', args: 'notes.txt' }, clock.t);
    board.getState().flush(clock.t); // the screen's output parsed in this turn, and 1 tool in the header
    expect(frames).not.toHaveBeenCalled(); // no frame of the header alone in the publish's turn
    await vi.waitFor(() => expect(frames).toHaveBeenCalledTimes(1));
    expect(frames).toHaveBeenLastCalledWith(); // a full frame
    expect(seen[0]!.some((row) => row.includes('1 tool'))).toBe(true);
    expect(seen[0]!.some((row) => row.includes('notes.txt'))).toBe(true);
    source.stop();
  });

  it('draws a flush of several panels just after a key press once, after every panel has parsed its output', async () => {
    const { clock, source, board, id, frames } = await headerRig(0);
    const other = board.getState().open({ label: 'second' }, clock.t);
    source.flushNow();
    await vi.waitFor(() => expect(frames).toHaveBeenCalled()); // the new structure's frame
    frames.mockClear();
    clock.t = T0 + 2_000;
    source.expedite(); // a key was typed in the main pane
    board.getState().emit(id, { type: 'tool_start', name: 'Read', args: 'first.txt' }, clock.t);
    board.getState().emit(other, { type: 'tool_start', name: 'Read', args: 'second.txt' }, clock.t);
    board.getState().flush(clock.t);
    expect(frames).toHaveBeenCalledTimes(1); // not one per panel's parse
    const rows = source.overlays().flatMap((o) => o.rows.map((row) => row.chars.join('')));
    expect(rows.some((row) => row.includes('first.txt'))).toBe(true);
    expect(rows.some((row) => row.includes('second.txt'))).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect(frames).toHaveBeenCalledTimes(1);
    source.stop();
  });

  it("makes a second's header row anew, as the whole way makes it", async () => {
    const { clock, source, board, id } = await headerRig(0);
    clock.t = T0 + 67_000;
    board.getState().tick(clock.t);
    const before = source.headerOverlays([id])![0]!.rows[0]!;
    expect(before.chars.join('')).toContain('1m07s');
    clock.t += 1_000;
    board.getState().tick(clock.t);
    const after = source.headerOverlays([id])![0]!.rows[0]!;
    expect(after.chars.join('')).toContain('1m08s');
    const s = board.getState();
    expect(after).toEqual(parseRow(headerRow(s.panels[0]!, after.chars.length, s.focus === id), after.chars.length)); // what the whole way makes
    source.stop();
  });

  it("does not call a second's frame a header's alone while other output waits for its frame", async () => {
    const { clock, main, source, board, frames } = await headerRig(5_000);
    clock.t = T0 + 1_500;
    main.write('output');
    await main.parsed(); // its frame waits on the timer (5 s between frames here)
    source.expedite(); // then a key: the next frame is drawn at once, in the turn that asks for it
    board.getState().tick(clock.t); // 1s in the header
    expect(frames).toHaveBeenCalledTimes(1);
    expect(frames).toHaveBeenLastCalledWith(undefined); // the main pane's change is in it: a full frame
    source.stop();
  });
});
