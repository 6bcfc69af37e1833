import { describe, expect, it } from 'vitest';
import { tapEvents } from '../../../src/io/embed/event-tap.js';
import { createBoard } from '../../../store/board.js';

describe('tapEvents', () => {
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
});
