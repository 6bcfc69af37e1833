/**
 * A job and its attempts (docs/spec.md, "Owners and sessions", "Supervision"): what one spawn asked for, checked
 * once. More than one attempt only with `retries`, as agents are not idempotent; each is a new panel, and the
 * job answers to any id. After an outage a fresh agent starts in the same panel: an attempt outlives its agent.
 */
import type { AgentResult } from '../../core/agents/agent-service.js';
import { RequestError } from '../../core/errors.js';
import type { AgentEvent } from '../../core/events.js';
import type { FinalState } from '../../core/panel/panel-state.js';
import type { AttemptState } from '../../core/agents/attempt.js';
import { FORK_TIMEOUT_DEFAULT, FORK_TIMEOUT_MAX, FORK_TIMEOUT_MIN } from '../../core/policy.js';
import { idleCancelProblem } from '../../core/agents/idle-cancel.js';
import { assertNever } from '../../core/never.js';
import { maskSecrets } from '../../core/text/secrets.js';
import type { Board } from '../../../store/board.js';
import type { Runner, RunningAgent, RunOutcome, RunSpec } from './runners/runner.js';

/** At most this many retries may be asked for. */
export const RETRIES_MAX = 5;

/** One panel of a job and the agent running in it. */
export interface Attempt {
  readonly id: number;
  /** The agent now running in the panel (a fresh one after an outage). */
  agent: RunningAgent;
  /** Where the attempt is in its life (src/core/agents/attempt.ts); changed only by `tell` (attempt-effects.ts). */
  life: AttemptState<RunOutcome>;
  /** While the panel is held for an outage: aborting it ends the wait. */
  hold?: AbortController;
  /** The machine-wide slot this attempt holds while it lives (src/io/storage/agent-slots.ts). */
  slot?: number;
  state?: FinalState;
  summary?: string;
}

/** What one spawn asked for, its attempts so far and, once concluded, its result. */
export interface Job {
  readonly kind: string;
  readonly label: string;
  /** The registry entry it was started from, if any. */
  readonly agent?: string;
  readonly task: string;
  readonly spec: RunSpec;
  readonly runner: Runner;
  readonly timeoutMs: number;
  /** The silence that cancels each attempt; undefined for ORCH_IDLE_KILL. */
  readonly idleKillMs: number | undefined;
  readonly startedAt: number;
  retriesLeft: number;
  readonly attempts: Attempt[];
  /** Lines about earlier attempts and refusals, for the result. */
  readonly notes: string[];
  result?: AgentResult;
  readonly waiters: Set<() => void>;
}

/** What a spawn (or a library user's worker) asks of a job besides its runner. */
export interface JobRequest {
  readonly label: string;
  /** The registry entry it was started from, if any. */
  readonly agent?: string | undefined;
  readonly task: string;
  /** Wall clock in seconds; undefined for the default. */
  readonly timeout: number | undefined;
  readonly retries: number | undefined;
  /** Silence in seconds that cancels the agent (ORCH_IDLE_KILL_MIN..MAX); undefined for the default. */
  readonly idleCancel?: number | undefined;
}

/** A job with no attempt yet; throws RequestError on a timeout or a number of retries out of range. */
export function newJob(kind: string, runner: Runner, spec: RunSpec, request: JobRequest, now: number): Job {
  const timeoutMs = wallClock(request.timeout);
  const retries = request.retries ?? 0;
  if (!Number.isInteger(retries) || retries < 0 || retries > RETRIES_MAX) {
    throw new RequestError(`retries must be a whole number from 0 to ${RETRIES_MAX}`);
  }
  if (request.idleCancel !== undefined) {
    const bad = idleCancelProblem(request.idleCancel);
    if (bad !== undefined) throw new RequestError(`idle_cancel ${bad}`);
  }
  // The task and label are shown, stored and logged (the agents table, the run log, a lane's file): masked once here; the agent gets its prompt from `spec`.
  return {
    kind,
    label: maskSecrets(request.label),
    ...(request.agent === undefined ? {} : { agent: request.agent }),
    task: maskSecrets(request.task),
    spec,
    runner,
    timeoutMs,
    idleKillMs: request.idleCancel === undefined ? undefined : request.idleCancel * 1000,
    startedAt: now,
    retriesLeft: retries,
    attempts: [],
    notes: [],
    waiters: new Set(),
  };
}

/**
 * Starts the job's agent for panel `id`: its events reach the panel (and every tap) with secrets masked, stamped
 * by `now`; its questions go to the board's queue (store/board-questions.ts).
 */
export function startAgent(job: Job, board: Board, id: number, now: () => number): RunningAgent {
  return job.runner(
    job.spec,
    (event) => board.getState().emit(id, masked(event), now()),
    (ask, reply) => board.getState().ask(id, ask, now(), reply),
  );
}

/** Resolves when the job concludes or after `waitMs`, whichever comes first. */
export function waitForResult(job: Job, waitMs: number): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      job.waiters.delete(done);
      resolve();
    };
    const timer = setTimeout(done, waitMs);
    job.waiters.add(done);
  });
}

/** Wakes every poll waiting for the job's result. */
export function wakeWaiters(job: Job): void {
  for (const wake of job.waiters) wake();
  job.waiters.clear();
}

/** The wall clock in ms for a requested timeout in seconds; throws RequestError outside the allowed range. */
export function wallClock(seconds: number | undefined): number {
  if (seconds === undefined) return FORK_TIMEOUT_DEFAULT;
  const ms = seconds * 1000;
  if (!Number.isFinite(ms) || ms < FORK_TIMEOUT_MIN || ms > FORK_TIMEOUT_MAX) {
    throw new RequestError(`timeout must be from ${FORK_TIMEOUT_MIN / 1000} to ${FORK_TIMEOUT_MAX / 1000} seconds (default ${FORK_TIMEOUT_DEFAULT / 1000})`);
  }
  return ms;
}

/**
 * An event with its secrets masked before it reaches a panel. Text and thoughts stream per token and are not
 * masked (docs/security.md), so the cost stays per tool event.
 */
function masked(event: AgentEvent): AgentEvent {
  switch (event.type) {
    case 'tool_start':
      return { ...event, args: maskSecrets(event.args) };
    case 'tool_end':
      return { ...event, result: maskSecrets(event.result) };
    case 'note':
    case 'error':
      return { ...event, text: maskSecrets(event.text) };
    case 'plan':
      return { ...event, entries: event.entries.map(maskSecrets) };
    case 'text':
    case 'thought':
    case 'usage':
    case 'session':
      return event;
    default:
      return assertNever(event);
  }
}
