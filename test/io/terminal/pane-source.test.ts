import { describe, expect, it, vi } from 'vitest';
import { createPaneSource } from '../../../src/io/terminal/pane-source.js';
import { XtermScreen } from '../../../src/io/terminal/screen.js';
import { TermOutput } from '../../../src/io/terminal/term-output.js';
import { createBoard } from '../../../store/board.js';

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
