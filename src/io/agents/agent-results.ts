/**
 * What a job answers (seed 001, section 7, the claim check): the result of a
 * finished job, of one still running, and of one only its stored row
 * remembers, with the shell exit code of each final state.
 *
 * Vocabulary:
 * - raw result: what the agent produced; stored whole as a record when it is
 *   longer than SPILL_LIMIT, before the record id is handed out.
 * - view: what the caller is handed of a raw result: all of it when short,
 *   else head + tail + the record id; head and tail with a note when the
 *   record could not be stored; only the tail while the agent still runs.
 * - row: the agent's row on the state database (src/io/storage/agents-store.ts), so
 *   that status and poll still answer after this process is gone.
 */
import type { AgentResult } from '../../core/agents/agent-service.js';
import { CLAIM_HEAD, CLAIM_TAIL, claimCheckView, codePoints, headOf, needsRecord, tailOf } from '../../core/agents/claim-check.js';
import { messageOf } from '../../core/errors.js';
import { isLive, type FinalState, type PanelState } from '../../core/panel/panel-state.js';
import { SPILL_LIMIT } from '../../core/policy.js';
import type { AgentRow } from '../../../store/status.js';
import type { Job } from './agent-jobs.js';
import type { StoredAgent } from '../storage/agents-store.js';
import { newRecordId, type RecordStore } from '../storage/records.js';

/** The shell exit code of each final state; 75 (EX_TEMPFAIL) is a refusal at the cap. */
export const EXIT_CODES: Readonly<Record<FinalState, number>> = { done: 0, failed: 1, timeout: 124, cancelled: 130 };
/** `tai spawn` exits with this when the agent cap refused the spawn. */
export const EXIT_REFUSED = 75;

/** A finished attempt's raw result and where the claim check put it. */
export interface ClaimedResult {
  readonly raw: string;
  /** Characters of the whole result. */
  readonly chars: number;
  /** The record holding the whole result; undefined when it is short or could not be stored. */
  readonly recordId: string | undefined;
  /** What the panel's summary ends with: ` · N chars`, and the record id it was given (even if storing it failed). */
  readonly suffix: string;
}

/** How an attempt ended, for its row. */
export interface AttemptEnd {
  readonly reason: string;
  readonly chars: number;
  readonly recordId: string | undefined;
  readonly text: string;
}

/**
 * Stores a long raw result as a record, before its id can be handed out; a
 * result that could not be stored adds a line to `notes` and is handed back
 * without a record.
 */
export function claimResult(records: RecordStore, raw: string, label: string, now: number, notes: string[]): ClaimedResult {
  const chars = codePoints(raw);
  const recordId = needsRecord(raw) ? newRecordId(now) : undefined;
  const suffix = ` · ${chars} chars${recordId ? ` · record ${recordId}` : ''}`;
  let stored = recordId;
  if (recordId) {
    try {
      records.put(raw, { label, id: recordId }, now);
    } catch (err) {
      stored = undefined;
      notes.push(`the result could not be stored: ${messageOf(err)}`);
    }
  }
  return { raw, chars, recordId: stored, suffix };
}

/** A concluded job's answer under the id of its first attempt: the view, marked partial after a stop, the job's notes first. */
export function finalResult(id: number, final: FinalState, claimed: ClaimedResult, reason: string, notes: readonly string[]): AgentResult {
  const { raw, chars, recordId } = claimed;
  let text = recordId ? claimCheckView(raw, recordId) : needsRecord(raw) ? truncatedView(raw) : raw;
  if (final === 'timeout' || final === 'cancelled') text = `[${final} (${reason}); partial result]\n${text}`;
  if (notes.length > 0) text = `${notes.join('\n')}\n${text}`;
  return {
    id,
    state: final,
    finished: true,
    text,
    chars,
    ...(recordId === undefined ? {} : { recordId }),
    reason,
    exitCode: EXIT_CODES[final],
  };
}

/** The answer so far of a job still running: its panel's state and reason, and the tail of a long result. */
export function liveResult(id: number, row: AgentRow | undefined, raw: string): AgentResult {
  const chars = codePoints(raw);
  const text = chars > SPILL_LIMIT ? `[... ${chars - CLAIM_TAIL} earlier characters not shown; poll again when it finishes ...]\n${tailOf(raw, CLAIM_TAIL)}` : raw;
  const state: PanelState = row?.state ?? 'running';
  return { id, state, finished: false, text, chars, reason: row?.reason ?? '' };
}

/** The answer of an agent known only by its stored row (its supervisor gone or restarted). */
export function storedResult(id: number, row: StoredAgent): AgentResult {
  return {
    id,
    state: row.state,
    finished: !isLive(row.state),
    text: row.text,
    chars: row.chars,
    ...(row.recordId === null ? {} : { recordId: row.recordId }),
    reason: row.reason,
    ...(row.exitCode === null ? {} : { exitCode: row.exitCode }),
  };
}

/** The row of attempt `id` in `state`; `counts` is its status row (tools and tokens), `end` how it ended. */
export function agentRowOf(run: string, job: Job, id: number, state: PanelState, now: number, counts: AgentRow | undefined, end?: AttemptEnd): StoredAgent {
  return {
    run,
    id,
    kind: job.kind,
    label: job.label,
    task: job.task,
    state,
    startedAt: job.startedAt,
    finishedAt: end ? now : null,
    reason: end?.reason ?? '',
    recordId: end?.recordId ?? null,
    chars: end?.chars ?? 0,
    exitCode: end && !isLive(state) ? EXIT_CODES[state as FinalState] : null,
    text: end?.text ?? '',
    tools: counts?.tools ?? 0,
    tokens: counts?.tokens ?? 0,
  };
}

/** A long result that could not be stored: head and tail with a note (never the whole text). */
function truncatedView(raw: string): string {
  const total = codePoints(raw);
  return `${headOf(raw, CLAIM_HEAD)}\n[... the result (${total} characters) could not be stored; only its head and tail are shown ...]\n${tailOf(raw, CLAIM_TAIL)}`;
}
