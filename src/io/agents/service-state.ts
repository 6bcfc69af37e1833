/**
 * What the agent service's parts share (src/io/agents/agent-service.ts): the
 * board, the stores, the jobs by attempt id, the lanes and the slots; and the
 * small reads and writes all of them make: an attempt's row on the board,
 * its row in the database, a slot given back.
 */
import { isLive, type FinalState, type PanelState } from '../../core/panel/panel-state.js';
import type { Board } from '../../../store/board.js';
import type { AgentRow } from '../../../store/status.js';
import type { Attempt, Job } from './agent-jobs.js';
import type { RunningAgent } from './runners/runner.js';
import type { AgentOutages } from '../outage/agent-outages.js';
import { agentRowOf, type AttemptEnd } from './agent-results.js';
import type { StoreResultOptions } from './result-store.js';
import type { AgentSlots } from '../storage/agent-slots.js';
import { freeRoom, keepRow } from '../storage/unsaved.js';
import type { AgentsStore, StoredAgent } from '../storage/agents-store.js';
import type { RecordStore } from '../storage/records.js';
import type { AgentTranscripts } from '../transcripts/agent-transcripts.js';
import type { LaneWatch } from '../lanes/lane-watch.js';
import type { StoredLane } from '../lanes/lane-store.js';
import type { LaunchKeeper } from '../restore/launch-keeper.js';

/** The agent service's state, read and changed by its parts. */
export interface ServiceState {
  readonly board: Board;
  readonly records: RecordStore;
  readonly agents: AgentsStore | undefined;
  /** The clock events and results are stamped with. */
  readonly now: () => number;
  /** This process's run key for the agents' rows. */
  readonly run: string;
  /** Every live job, and the newest CONCLUDED_JOBS_MAX concluded ones, under the id of each of its attempts. */
  readonly jobs: Map<number, Job>;
  /** The concluded jobs still in `jobs`, oldest first (retire). */
  readonly concluded: Job[];
  /** The jobs not concluded yet: what a publish looks at, so its cost does not grow with the concluded ones kept. */
  readonly live: Set<Job>;
  readonly outages: AgentOutages | undefined;
  readonly lanes: LaneWatch | undefined;
  /** The lane each lane job runs in. */
  readonly laneOf: WeakMap<Job, StoredLane>;
  readonly slots: AgentSlots | undefined;
  readonly stateDir: string | undefined;
  readonly store: StoreResultOptions;
  /** Writes the agents' transcripts for `tai logs`; omitted without a database. */
  readonly transcripts: AgentTranscripts | undefined;
  /** Keeps each attempt's launch for a restore (docs/restore.md); omitted without a database. */
  readonly launches?: LaunchKeeper | undefined;
  /** Starts the job's next attempt (agent-start.ts), for a retry; throws as a spawn does. */
  readonly startAttempt: (job: Job, now: number) => number;
}

/**
 * Concluded jobs kept in `jobs` for a poll or steer; an older one answers from its stored row, so a day of agents
 * costs the service no memory or time per agent ever run.
 */
export const CONCLUDED_JOBS_MAX = 64;

/**
 * A job has its result: its attempts let go of their agents (process, streams, whole text), and it joins the
 * concluded ones kept, the oldest beyond CONCLUDED_JOBS_MAX leaving `jobs`.
 */
export function retire(s: ServiceState, job: Job): void {
  for (const attempt of job.attempts) attempt.agent = settledAgent(attempt.agent);
  s.live.delete(job);
  s.concluded.push(job);
  while (s.concluded.length > CONCLUDED_JOBS_MAX) {
    const old = s.concluded.shift();
    for (const attempt of old?.attempts ?? []) if (s.jobs.get(attempt.id) === old) s.jobs.delete(attempt.id);
  }
}

/** What a concluded attempt keeps of its agent: its process group's id and its outcome; stops are no-ops. */
function settledAgent(agent: RunningAgent): RunningAgent {
  const { pgid, ended } = agent;
  return { pgid, ended, result: () => '', soft: () => {}, hard: () => {} };
}

/** The board's status row of panel `id`, if it has one. */
export function boardRow(s: ServiceState, id: number, now: number): AgentRow | undefined {
  return s.board.getState().rowOf(id, now);
}

/** The final state the board gave panel `id`, or undefined while it is live. */
export function rowState(s: ServiceState, id: number, now: number): FinalState | undefined {
  const row = boardRow(s, id, now);
  return row && !isLive(row.state) ? (row.state as FinalState) : undefined;
}

/** Why panel `id` ended, as the board says it ('' before it ended). */
export function reasonOf(s: ServiceState, id: number, now: number): string {
  return boardRow(s, id, now)?.reason ?? '';
}

/** Gives a slot back; a failed delete is retried by the upkeep, or reclaimed once this process is gone. */
export function release(s: ServiceState, slot: number | undefined): void {
  if (slot === undefined) return;
  try {
    s.slots?.release(slot);
  } catch {
    // The slot is no longer held here, and renew deletes it.
  }
}

/**
 * Writes the attempt's row. A final row the database refuses is kept in a file (src/io/storage/unsaved.ts); on a
 * full disk, where that fails too, the supervisor's room is given back and a compact row written.
 */
export function saveRow(s: ServiceState, job: Job, attempt: Attempt, state: PanelState, now: number, end?: AttemptEnd): void {
  if (!s.agents) return;
  const stored = agentRowOf(s.run, job, attempt.id, state, now, boardRow(s, attempt.id, now), end);
  if (end !== undefined && !isLive(state)) s.launches?.ended(attempt.id, end.reason);
  // A live row is for status after a restart; supervision goes on without it.
  if (attempted(() => s.agents?.save(stored)) || end === undefined || isLive(state)) return;
  const dir = s.stateDir;
  const compact = compactRow(stored);
  if (dir !== undefined && attempted(() => keepRow(dir, stored))) return;
  // A full disk: the room this supervisor set aside at its start is given back for the row.
  if (dir !== undefined) freeRoom(dir, s.run);
  if (attempted(() => s.agents?.save(compact))) return;
  // Nowhere else: the row reads as its supervisor's end (cancelled) later.
  if (dir !== undefined && compact !== stored) attempted(() => keepRow(dir, compact));
}

/** A row's text longer than this is cut to one line when the full row found no room. */
const COMPACT_TEXT_MAX = 200;

/** The row with a long text replaced by a line saying where the result went (the caller had it whole). */
export function compactRow(row: StoredAgent): StoredAgent {
  if (row.text.length <= COMPACT_TEXT_MAX) return row;
  const where = row.recordId === null ? 'it was handed back to the caller' : `the whole of it is in record ${row.recordId}`;
  return { ...row, text: `[the result (${row.chars} characters) did not fit in the state database; ${where}]` };
}

/** Runs a write; false when it threw. */
function attempted(write: () => unknown): boolean {
  try {
    write();
    return true;
  } catch {
    return false;
  }
}
