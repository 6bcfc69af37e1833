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
import { LAUNCH_VERSION, type Launch } from '../../core/restore/launch.js';
import { fingerprint, programPrint } from '../restore/fingerprint.js';
import type { RestoredInfo } from '../restore/launch-keeper.js';
import { hostOfWrapper } from '../remote/remote-agent.js';

/** What a panel opened for a restored agent starts with (docs/restore.md). */
export interface Opening {
  /** The transcript so far for panel `id`, carried into its new transcript for `tai logs`. */
  readonly carried?: (id: number) => string;
  /** Called once the panel is open, before the agent starts: its old transcript and the seam. */
  readonly before?: (id: number) => void;
}

/** How a restored agent's job differs from a spawn's. */
export interface Restoring extends Opening {
  /** The wall clock it has left. */
  readonly timeoutMs: number;
  readonly info: RestoredInfo;
  readonly lane?: StoredLane;
}

/** Starts a restored agent in a new panel with the wall clock it had left; throws as a spawn does. */
export function restoreJob(s: ServiceState, kind: string, runner: Runner, spec: RunSpec, request: JobRequest, now: number, restoring: Restoring): number {
  const job: Job = { ...newJob(kind, runner, spec, { ...request, timeout: undefined }, now), timeoutMs: restoring.timeoutMs };
  s.launches?.markRestored(job, restoring.info);
  if (restoring.lane) s.laneOf.set(job, restoring.lane);
  return startAttempt(s, job, now, restoring);
}

/**
 * A panel for an agent that ended with its cockpit and is not started again (it cannot resume, its folder is
 * gone, its session refused): its transcript, why, and `tai restart ID`; its launch kept under the new id.
 */
export function showEnded(s: ServiceState, launch: Launch, why: (id: number) => string, now: number, opening: Opening & { readonly from: string }): number {
  const board = s.board.getState();
  const id = board.open({ label: launch.label, task: launch.task, timeoutMs: launch.limitMs }, now);
  s.transcripts?.open(id, launch.task, opening.carried?.(id));
  opening.before?.(id);
  const line = why(id);
  board.emit(id, { type: 'note', text: line }, now);
  board.finish(id, 'cancelled', line, now);
  s.transcripts?.end(id, 'cancelled', 0, line);
  s.launches?.kept(id, launch, now, opening.from);
  // Its row, so that tai status and tai logs find it after this cockpit too.
  const row = { run: s.run, id, kind: launch.kind, label: launch.label, task: launch.task, state: 'cancelled' as const, startedAt: now, finishedAt: now, reason: line, recordId: null, chars: 0, exitCode: 130, text: '', tools: 0, tokens: 0 };
  try {
    s.agents?.save(row);
  } catch {
    // Locked or full: the panel says it; the launch row is what tai restart needs.
  }
  return id;
}

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
export function startAttempt(s: ServiceState, job: Job, now: number, opening?: Opening): number {
  const n = job.attempts.length + 1;
  const launch = s.launches === undefined ? undefined : launchOf(s, job, n);
  const label = n === 1 ? job.label : `${job.label} (attempt ${n})`;
  const board = s.board.getState();
  // The machine's cap first (every tai process of this user counts the same slots), then the board's own;
  // an agent on a host claims its host's slot there instead (docs/remote.md, "The cap per host").
  const host = hostOfWrapper(job.spec.argv);
  const slot = host === undefined ? s.slots?.claim(label, now) : undefined;
  let id: number;
  try {
    id = board.open({ label, task: job.task, timeoutMs: job.timeoutMs, ...(job.idleKillMs === undefined ? {} : { idleKillMs: job.idleKillMs }), ...(host === undefined ? {} : { host }) }, now);
  } catch (err) {
    release(s, slot);
    throw err;
  }
  s.transcripts?.open(id, job.task, opening?.carried?.(id));
  opening?.before?.(id);
  // Kept before the agent starts: a session id it reports at once finds its launch.
  if (launch) s.launches?.started(id, launch, now, n === 1 ? s.launches.restoredOf(job)?.from : undefined);
  let agent: RunningAgent;
  try {
    agent = startAgent(job, s.board, id, s.now);
  } catch (err) {
    // A request the runner refused leaves no panel behind (a failed one would hold a place for ORCH_LINGER).
    release(s, slot);
    s.launches?.ended(id, 'not started');
    board.finish(id, 'failed', messageOf(err), now);
    s.transcripts?.end(id, 'failed', 0, messageOf(err));
    board.close(id, now);
    throw err instanceof RequestError ? err : new RequestError(`cannot start ${job.label}: ${messageOf(err)}`);
  }
  const attempt: Attempt = { id, agent, life: startedAttempt(), ...(slot === undefined ? {} : { slot }) };
  job.attempts.push(attempt);
  s.jobs.set(id, job);
  s.live.add(job);
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

/** The launch of attempt `n` of `job`: its spec byte for byte, its clocks, its lane, its program and folder as they are now. */
function launchOf(s: ServiceState, job: Job, n: number): Launch {
  const { spec } = job;
  // Only the first attempt of a restored job carries the clock spent before; a retry starts its own.
  const origin = s.launches?.restoredOf(job);
  const restored = n === 1 ? origin : undefined;
  const prompt = origin === undefined ? spec.prompt : origin.prompt;
  const cwd = spec.cwd ?? process.cwd();
  const program = programPrint(spec.argv[0], cwd);
  const dir = fingerprint(cwd, false);
  const lane = s.laneOf.get(job)?.name;
  return {
    v: LAUNCH_VERSION,
    kind: job.kind,
    argv: spec.argv,
    ...(spec.cwd === undefined ? {} : { cwd: spec.cwd }),
    ...(spec.env === undefined ? {} : { env: spec.env }),
    ...(prompt === undefined ? {} : { prompt }),
    label: job.label,
    ...(job.agent === undefined ? {} : { agent: job.agent }),
    task: job.task,
    ...(spec.allow === undefined ? {} : { allow: spec.allow }),
    ...(spec.permissions === undefined ? {} : { permissions: spec.permissions }),
    ...(spec.askTimeoutMs === undefined ? {} : { askTimeoutMs: spec.askTimeoutMs }),
    ...(spec.askDefault === undefined ? {} : { askDefault: spec.askDefault }),
    ...(spec.stdin === undefined ? {} : { stdin: spec.stdin }),
    ...(spec.session === undefined ? {} : { session: spec.session }),
    ...(lane === undefined ? {} : { lane }),
    limitMs: restored?.limitMs ?? job.timeoutMs,
    spentMs: restored?.spentMs ?? 0,
    ...(job.idleKillMs === undefined ? {} : { idleKillMs: job.idleKillMs }),
    retriesLeft: job.retriesLeft,
    ...(restored?.sessionId === undefined ? {} : { sessionId: restored.sessionId }),
    ...(program === undefined ? {} : { program }),
    ...(dir === undefined ? {} : { dir }),
  };
}
