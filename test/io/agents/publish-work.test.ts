import { describe, expect, it } from 'vitest';
import type { Attempt, Job } from '../../../src/io/agents/agent-jobs.js';
import { sweep } from '../../../src/io/agents/attempt-effects.js';
import { CONCLUDED_JOBS_MAX, retire, type ServiceState } from '../../../src/io/agents/service-state.js';
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
