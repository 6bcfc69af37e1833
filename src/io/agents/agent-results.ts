/**
 * What a job answers (docs/spec.md, "Claim check"): the result of a finished job, of one still running (its tail
 * only), and of one only its stored row remembers, with each final state's exit code. A raw result longer than
 * SPILL_LIMIT is stored as a record before its id is handed out; the row keeps status and poll answering.
 */
import type { AgentResult } from '../../core/agents/agent-service.js';
import { CLAIM_HEAD, CLAIM_TAIL, claimCheckView, codePoints, headOf, tailOf } from '../../core/agents/claim-check.js';
import { assertNever } from '../../core/never.js';
import { isLive, type FinalState, type PanelState } from '../../core/panel/panel-state.js';
import { SPILL_LIMIT } from '../../core/policy.js';
import type { AgentRow } from '../../../store/status.js';
import type { Job } from './agent-jobs.js';
import type { StoredAgent } from '../storage/agents-store.js';
import { placeSuffix, type ResultPlace } from './result-store.js';

/** The shell exit code of each final state; 75 (EX_TEMPFAIL) is a refusal at the cap. */
export const EXIT_CODES: Readonly<Record<FinalState, number>> = { done: 0, failed: 1, timeout: 124, cancelled: 130 };
/** `tai spawn` exits with this when the agent cap refused the spawn. */
export const EXIT_REFUSED = 75;
/**
 * `tai spawn`'s exit (EX_IOERR) when the state database could not be used or could not store the result: the
 * whole result is then in the file the message names, or on stdout.
 */
export const EXIT_STORAGE = 74;

/** A finished attempt's raw result and where the claim check put it. */
export interface ClaimedResult {
  readonly raw: string;
  /** Characters of the whole result. */
  readonly chars: number;
  /** The record holding the whole result; undefined when it is short or could not be stored. */
  readonly recordId: string | undefined;
  /** Where a long result went; undefined for a short one (handed back whole). */
  readonly place: ResultPlace | undefined;
  /** What the panel's summary ends with: ` · N chars`, and the record or the file that holds the whole result. */
  readonly suffix: string;
}

/** How an attempt ended, for its row. */
export interface AttemptEnd {
  readonly reason: string;
  readonly chars: number;
  readonly recordId: string | undefined;
  readonly text: string;
}

/** A raw result and where it was put (src/io/agents/result-store.ts): what the panel and the answer say of it. */
export function claimedOf(raw: string, place: ResultPlace | undefined): ClaimedResult {
  return { raw, chars: codePoints(raw), recordId: place?.kind === 'record' ? place.id : undefined, place, suffix: placeSuffix(raw, place) };
}

/** A concluded job's answer under the id of its first attempt: the view, marked partial after a stop, the job's notes first. */
export function finalResult(id: number, final: FinalState, claimed: ClaimedResult, reason: string, notes: readonly string[]): AgentResult {
  const { raw, chars, recordId, place } = claimed;
  let text = viewOf(raw, place);
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
    ...(place?.kind === 'file' ? { resultFile: place.path } : {}),
    ...(place !== undefined && place.kind !== 'record' ? { storageError: place.why } : {}),
    // Not stored is said loudly: the caller must look where the text says (docs/security.md, "Storage faults").
    exitCode: place !== undefined && place.kind !== 'record' ? EXIT_STORAGE : EXIT_CODES[final],
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

/** What the caller is handed of a raw result in its place: whole when short or nowhere else, the claim check or the kept file's view when long. */
function viewOf(raw: string, place: ResultPlace | undefined): string {
  if (!place) return raw;
  const total = codePoints(raw);
  switch (place.kind) {
    case 'record':
      return claimCheckView(raw, place.id);
    case 'file':
      return `${headOf(raw, CLAIM_HEAD)}\n[... the result (${total} characters) could not be stored in the state database (${place.why}); the whole of it is in ${place.path} ...]\n${tailOf(raw, CLAIM_TAIL)}`;
    case 'inline':
      return `[the result (${total} characters) could not be stored (${place.why}); all of it follows]\n${raw}`;
    default:
      return assertNever(place);
  }
}
