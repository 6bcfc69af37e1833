/**
 * The agent service's spawn path (docs/spec.md, "Owners and sessions"): a job
 * made from a request, then each attempt of it: a machine-wide slot claimed, a
 * panel opened on the board (under its cap), the runner started in it, the
 * board's stop hooks bound to whichever agent runs there, its row saved.
 */
import type { SpawnResult } from '../../core/agents/agent-service.js';
import { RequestError, messageOf } from '../../core/errors.js';
import { startedAttempt } from '../../core/agents/attempt.js';
import { followAttempt, tell } from './attempt-effects.js';
import { newJob, startAgent, type Attempt, type Job, type JobRequest } from './agent-jobs.js';
import type { Runner, RunningAgent, RunSpec } from './runners/runner.js';
import type { StoredLane } from '../lanes/lane-store.js';
import { release, saveRow, type ServiceState } from './service-state.js';

/** Makes a job and starts its first attempt; what spawn answers at once. */
export function startJob(s: ServiceState, kind: string, runner: Runner, spec: RunSpec, request: JobRequest, now: number, lane?: StoredLane): SpawnResult {
  const job = newJob(kind, runner, spec, request, now);
  if (lane) s.laneOf.set(job, lane);
  const id = startAttempt(s, job, now);
  const view = s.board.getState().panels.find((p) => p.id === id);
  return {
    id,
    label: view?.label ?? job.label,
    shown: view?.shown ?? false,
    ...(view?.reason === undefined ? {} : { reason: view.reason }),
  };
}

/** Opens a panel and starts one attempt in it; throws AgentsFullError from the board. */
export function startAttempt(s: ServiceState, job: Job, now: number): number {
  const n = job.attempts.length + 1;
  const label = n === 1 ? job.label : `${job.label} (attempt ${n})`;
  const board = s.board.getState();
  // The machine's cap first (every tai process of this user counts the same slots), then the board's own.
  const slot = s.slots?.claim(label, now);
  let id: number;
  try {
    id = board.open({ label, task: job.task, timeoutMs: job.timeoutMs, ...(job.idleKillMs === undefined ? {} : { idleKillMs: job.idleKillMs }) }, now);
  } catch (err) {
    release(s, slot);
    throw err;
  }
  s.transcripts?.open(id, job.task);
  let agent: RunningAgent;
  try {
    agent = startAgent(job, s.board, id, s.now);
  } catch (err) {
    // A request the runner refused leaves no panel behind (a failed one would hold a place for ORCH_LINGER).
    release(s, slot);
    board.finish(id, 'failed', messageOf(err), now);
    s.transcripts?.end(id, 'failed', 0, messageOf(err));
    board.close(id, now);
    throw err instanceof RequestError ? err : new RequestError(`cannot start ${job.label}: ${messageOf(err)}`);
  }
  const attempt: Attempt = { id, agent, life: startedAttempt(), ...(slot === undefined ? {} : { slot }) };
  job.attempts.push(attempt);
  s.jobs.set(id, job);
  bindStops(s, job, attempt);
  saveRow(s, job, attempt, 'running', now);
  const lane = s.laneOf.get(job);
  if (lane) s.lanes?.follow(id, lane, () => attempt.agent.pgid);
  followAttempt(s, job, attempt);
  return id;
}

/** The board's stop hooks reach whichever agent runs in the panel now, and end an outage wait. */
function bindStops(s: ServiceState, job: Job, attempt: Attempt): void {
  s.board.getState().setCancel(
    attempt.id,
    (reason) => tell(s, job, attempt, { type: 'stop', hard: false, reason }),
    (reason) => tell(s, job, attempt, { type: 'stop', hard: true, reason }),
  );
}
