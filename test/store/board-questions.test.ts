/** The board's questions applied to its records: the asking state through a hold, a reply called once, the count the status line shows. */
import { describe, expect, test } from 'vitest';
import type { QuestionAnswer, QuestionAsk } from '../../src/core/agents/questions.js';
import { createBoard } from '../../store/board.js';

const ASK: QuestionAsk = { tool: 'Edit a.txt', detail: [], options: [{ id: 'ok', name: 'Allow', kind: 'allow_once' }, { id: 'no', name: 'Reject', kind: 'reject_once' }] };

describe('the board holding questions', () => {
  test('a panel held for an outage while asking waits for the user again when the hold ends', () => {
    const board = createBoard();
    const id = board.getState().open({ label: 'a' }, 0);
    board.getState().ask(id, ASK, 0, () => {});
    board.getState().hold(id, 'network', 1_000);
    expect(board.getState().panels[0]?.state).toBe('waiting');
    board.getState().resume(id, 2_000);
    expect(board.getState().panels[0]?.state).toBe('asking');
  });

  test('calls each reply once: the answer, then cancelled for the agent that finished with a question queued', () => {
    const board = createBoard();
    const id = board.getState().open({ label: 'a' }, 0);
    const got: QuestionAnswer[] = [];
    const qid = board.getState().ask(id, ASK, 0, (a) => got.push(a));
    board.getState().ask(id, ASK, 0, (a) => got.push(a));
    expect(board.getState().asking).toBe(1);
    board.getState().answer(qid ?? '', 'n', 'key', 1_000);
    board.getState().finish(id, 'done', 'exit 0', 2_000);
    expect(got).toEqual([
      { outcome: 'selected', option: { id: 'no', name: 'Reject', kind: 'reject_once' }, by: 'key' },
      { outcome: 'cancelled', why: 'is gone: its agent ended (done)' },
    ]);
    expect(board.getState().asking).toBe(0);
    expect(board.getState().ask(id, ASK, 3_000, (a) => got.push(a))).toBeUndefined();
    expect(got.at(-1)).toEqual({ outcome: 'cancelled', why: 'the agent is gone' });
  });
});
