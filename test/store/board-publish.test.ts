import { describe, expect, it } from 'vitest';
import { createBoard } from '../../store/board.js';
import { ORCH_FLUSH_INTERVAL } from '../../src/core/policy.js';
import { xtermScreens } from '../../src/io/terminal/screen.js';

const T0 = 1_000_000;

describe('board publish while streaming', () => {
  it('publishes nothing on a flush that changed no published field (the bytes reach the screens all the same)', () => {
    const board = createBoard({ cols: 120, rows: 40, createScreen: xtermScreens });
    const ids = [1, 2, 3].map((i) => board.getState().open({ label: `agent #${i}`, task: 'stream' }, T0));
    let now = T0;
    board.getState().flush(now);
    let published = 0;
    const off = board.subscribe(() => published++);
    const bytes = board.counters.bytesWritten;
    // Thirty flushes within one second: the headers' elapsed time, the layout and the states stay the same.
    for (let k = 0; k < 30; k++) {
      now += ORCH_FLUSH_INTERVAL;
      for (const id of ids) board.getState().emit(id, { type: 'text', text: `token ${k} ` }, now);
      expect(board.getState().flush(now)).toBe(true);
    }
    off();
    expect(board.counters.bytesWritten).toBeGreaterThan(bytes);
    expect(published).toBe(0);
  });

  it('still publishes a flush that changed a panel (a state, a header)', () => {
    const board = createBoard({ cols: 120, rows: 40, createScreen: xtermScreens });
    const id = board.getState().open({ label: 'agent #1', task: 'stream' }, T0);
    board.getState().flush(T0);
    const before = board.getState().panels;
    board.getState().emit(id, { type: 'tool_start', name: 'shell', args: 'ls' }, T0 + ORCH_FLUSH_INTERVAL);
    board.getState().emit(id, { type: 'text', text: 'x' }, T0 + 2000);
    board.getState().flush(T0 + 2000);
    expect(board.getState().panels).not.toBe(before);
  });
});
