import { describe, expect, it } from 'vitest';
import type { Attempt, Job } from '../../../src/io/agents/agent-jobs.js';
import { sweep } from '../../../src/io/agents/attempt-effects.js';
import { boardRow, CONCLUDED_JOBS_MAX, reasonOf, retire, rowState, type ServiceState } from '../../../src/io/agents/service-state.js';
import { createBoard } from '../../../store/board.js';

/** A job with one attempt, and how often a publish looked at its attempts. */
function countedJob(id: number, phase: 'running' | 'finished'): { job: Job; looks: () => number } {
  let looks = 0;
  const attempt = { id, agent: { pgid: id, ended: Promise.resolve(), result: () => '', soft: () => {}, hard: () => {} }, life: { phase, stop: 'none' } } as unknown as Attempt;
  const attempts = [attempt];
  const job = {
    label: `job ${id}`,
    get attempts() {
      looks++;
      return attempts;
    },
  } as unknown as Job;
  return { job, looks: () => looks };
}

describe('the work of a publish in the agent service', () => {
  it('looks at the live jobs only, however many concluded jobs are kept', () => {
    const s = { board: createBoard(), now: () => 0, jobs: new Map(), concluded: [], live: new Set(), outages: undefined, transcripts: undefined } as unknown as ServiceState;
    const kept = Array.from({ length: CONCLUDED_JOBS_MAX }, (_, i) => countedJob(i + 1, 'finished'));
    for (const { job } of kept) {
      // Started as startAttempt starts a job, then concluded.
      s.jobs.set(job.attempts[0]!.id, job);
      s.live.add(job);
      retire(s, job);
    }
    const running = countedJob(1000, 'running');
    s.jobs.set(1000, running.job);
    s.live.add(running.job);
    const before = kept.map((k) => k.looks());
    for (let i = 0; i < 10; i++) sweep(s);
    expect(kept.map((k, i) => k.looks() - before[i]!).reduce((a, b) => a + b, 0)).toBe(0);
    expect(running.looks()).toBeGreaterThanOrEqual(10);
    expect(s.jobs.size).toBe(CONCLUDED_JOBS_MAX + 1);
  });
});

describe("the work of an agent's end and of a poll in the agent service", () => {
  it("reads one agent's row without making the status of every agent the board keeps", () => {
    const board = createBoard();
    const b = board.getState();
    const live = b.open({ label: 'live' }, 0);
    const ended: number[] = [];
    for (let i = 0; i < 64; i++) {
      const id = b.open({ label: `ended ${i}` }, 0);
      b.finish(id, i % 2 === 0 ? 'done' : 'failed', `reason ${i}`, 0);
      b.close(id, 0);
      ended.push(id);
    }
    // Every call of `status` makes a row for each agent kept: an agent's end and a poll ask for one row.
    let calls = 0;
    const status = b.status;
    board.setState({
      status: (now: number) => {
        calls++;
        return status(now);
      },
    });
    const s = { board, now: () => 1000 } as unknown as ServiceState;
    expect(boardRow(s, live, 1000)).toMatchObject({ id: live, label: 'live', state: 'running' });
    expect(rowState(s, live, 1000)).toBeUndefined();
    expect(rowState(s, ended[63]!, 1000)).toBe('failed');
    expect(reasonOf(s, ended[62]!, 1000)).toBe('reason 62');
    expect(boardRow(s, 9999, 1000)).toBeUndefined();
    expect(calls).toBe(0);
    expect(boardRow(s, ended[10]!, 1000)).toEqual(status(1000).agents.find((r) => r.id === ended[10]));
  });
});
