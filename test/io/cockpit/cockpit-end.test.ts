import { afterEach, describe, expect, it, vi } from 'vitest';
import { ORCH_CANCEL_GRACE } from '../../../src/core/policy.js';
import { stopAgents } from '../../../src/io/cockpit/cockpit-end.js';
import { createBoard } from '../../../store/board.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('stopAgents', () => {
  it('asks every agent to stop softly, and hard after the grace when one does not', async () => {
    vi.useFakeTimers();
    const board = createBoard();
    const now = () => Date.now();
    const polite = board.getState().open({ label: 'polite' }, now());
    const stubborn = board.getState().open({ label: 'stubborn' }, now());
    const calls: string[] = [];
    board.getState().setCancel(polite, () => {
      calls.push('polite soft');
      board.getState().finish(polite, 'cancelled', 'stopped', now());
    });
    board.getState().setCancel(
      stubborn,
      () => calls.push('stubborn soft'),
      () => {
        calls.push('stubborn hard');
        board.getState().finish(stubborn, 'failed', 'killed', now());
      },
    );
    const done = stopAgents(board, now);
    await vi.advanceTimersByTimeAsync(ORCH_CANCEL_GRACE + 1_000);
    await done;
    expect(calls).toEqual(['polite soft', 'stubborn soft', 'stubborn hard']);
    const states = board.getState().status(now()).agents.map((a) => [a.label, a.state]);
    expect(states).toEqual([
      ['polite', 'cancelled'],
      ['stubborn', 'cancelled'],
    ]);
  });
});
