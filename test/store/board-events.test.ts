import { describe, expect, it } from 'vitest';
import { tapEvents } from '../../store/board-events.js';
import { createBoard } from '../../store/board.js';

describe("the board's event listeners", () => {
  it('tells every listener each event before the board counts it, until untapped', () => {
    const board = createBoard();
    const id = board.getState().open({ label: 'a' }, 1_000);
    const first: string[] = [];
    const second: string[] = [];
    const errors: unknown[] = [];
    const untapFirst = tapEvents(board, (panel, event) => first.push(`#${panel} ${event.type}`));
    tapEvents(board, () => {
      second.push('x');
      throw new Error('listener broke');
    }, (err) => errors.push(err));
    board.getState().emit(id, { type: 'tool_start', name: 'ls', args: '' }, 1_010);
    untapFirst();
    board.getState().emit(id, { type: 'text', text: 'hi' }, 1_020);
    expect(first).toEqual([`#${id} tool_start`]);
    expect(second).toEqual(['x', 'x']);
    expect(errors).toHaveLength(2);
    // A throwing listener never keeps the event from the board.
    expect(board.getState().status(1_030).agents[0]).toMatchObject({ id, tools: 1 });
  });

  it('tells the onEvent option every event from the first, and logs a listener that throws without onError', () => {
    const seen: string[] = [];
    const lines: string[] = [];
    const board = createBoard({ onEvent: (panel, event, now) => seen.push(`#${panel} ${event.type} ${now}`), log: (line) => lines.push(line) });
    const id = board.getState().open({ label: 'a' }, 1_000);
    board.getState().listen(() => {
      throw new Error('broke');
    });
    board.getState().emit(id, { type: 'usage', tokens: 3 }, 1_010);
    expect(seen).toEqual([`#${id} usage 1010`]);
    expect(lines).toEqual(['event listener failed: broke']);
  });

  it('lets a listener remove itself while it is told, and still tells the others', () => {
    const board = createBoard();
    const id = board.getState().open({ label: 'a' }, 1_000);
    const seen: string[] = [];
    const untap = board.getState().listen(() => {
      seen.push('once');
      untap();
    });
    board.getState().listen(() => seen.push('always'));
    board.getState().emit(id, { type: 'text', text: 'a' }, 1_010);
    board.getState().emit(id, { type: 'text', text: 'b' }, 1_020);
    expect(seen).toEqual(['once', 'always', 'always']);
  });
});
