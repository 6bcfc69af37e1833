/**
 * The agent service's end of an attempt (docs/spec.md, "Supervision" and "Claim
 * check"): a long raw result stored through the claim check (waiting out a
 * locked database), the panel finished, the slot given back, then a retry or
 * the job's answer; and the sweep, on every publish of the board, of what no
 * runner reports.
 */
import { codePoints, needsRecord } from '../../core/agents/claim-check.js';
import { messageOf } from '../../core/errors.js';
import type { FinalState } from '../../core/panel/panel-state.js';
import { checkSilence } from './agent-holds.js';
import { wakeWaiters, type Attempt, type Job } from './agent-jobs.js';
import { claimedOf, finalResult, type ClaimedResult } from './agent-results.js';
import { storeNow, waitOut } from './result-store.js';
import { newRecordId } from '../storage/records.js';
import type { RunOutcome } from './runners/runner.js';
import { startAttempt } from './agent-start.js';
import { boardRow, reasonOf, release, rowState, saveRow, type ServiceState } from './service-state.js';

/**
 * An attempt ended: store a long result, finish its panel, retry or answer.
 * Without an outcome the board has already finished the panel itself.
 */
export function finishAttempt(s: ServiceState, job: Job, attempt: Attempt, outcome?: RunOutcome): void {
  if (attempt.settled) return;
  attempt.settled = true;
  const raw = attempt.agent.result();
  if (!needsRecord(raw)) return finishClaimed(s, job, attempt, outcome, claimedOf(raw, undefined));
  // Write before the reference can be handed out (the footer shows it only after the next flush).
  const id = newRecordId(s.now());
  const first = storeNow(s.store, raw, job.label, id);
  if (first !== 'locked') return finishClaimed(s, job, attempt, outcome, claimedOf(raw, first));
  // Locked by another process: wait it out without blocking the loop; the panel stays live and says why.
  const since = s.now();
  s.board.getState().emit(attempt.id, { type: 'note', text: `the state database is locked; the result (${codePoints(raw)} characters) is stored as soon as it is free (waiting up to ${Math.round(s.store.waitMs / 1000)} s)` }, since);
  void waitOut(s.store, raw, job.label, id, since).then((place) => finishClaimed(s, job, attempt, outcome, claimedOf(raw, place)));
}

/** A settled attempt's result is in its place: finish the panel, give back the slot, retry or answer. */
function finishClaimed(s: ServiceState, job: Job, attempt: Attempt, outcome: RunOutcome | undefined, claimed: ClaimedResult): void {
  const now = s.now();
  // The footer and the reason are one line, whatever the agent's message held (Gemini's 429 has two).
  const summary = `${(outcome?.summary ?? 'stopped').replace(/\s*[\r\n]+\s*/g, ' ')}${claimed.suffix}`;
  if (s.laneOf.has(job)) s.lanes?.ending(attempt.id);
  const final = outcome
    ? (s.board.getState().finish(attempt.id, outcome.state, summary, now) ?? rowState(s, attempt.id, now) ?? outcome.state)
    : (rowState(s, attempt.id, now) ?? 'cancelled');
  const row = boardRow(s, attempt.id, now);
  s.transcripts?.end(attempt.id, final, row?.elapsedMs ?? 0, row?.reason || summary);
  attempt.agent.finished?.(final);
  release(s, attempt.slot);
  attempt.slot = undefined;
  conclude(s, job, attempt, final, claimed, now);
}

/** A finished attempt retries (failed, with retries left) or answers its job, waking the polls that wait. */
function conclude(s: ServiceState, job: Job, attempt: Attempt, final: FinalState, claimed: ClaimedResult, now: number): void {
  const reason = reasonOf(s, attempt.id, now);
  const { chars, recordId } = claimed;
  attempt.state = final;
  attempt.summary = reason;
  if (final === 'failed' && job.retriesLeft > 0) {
    job.retriesLeft--;
    job.notes.push(`attempt ${job.attempts.length} (#${attempt.id}): failed: ${reason}`);
    try {
      startAttempt(s, job, now);
      saveRow(s, job, attempt, final, now, { reason, chars, recordId, text: '' });
      return;
    } catch (err) {
      job.notes.push(`attempt ${job.attempts.length + 1}: refused: ${messageOf(err)}`);
    }
  } else if (job.attempts.length > 1) {
    job.notes.push(`attempt ${job.attempts.length} (#${attempt.id}): ${final}${reason ? `: ${reason}` : ''}`);
  }
  const result = finalResult(job.attempts[0]?.id ?? attempt.id, final, claimed, reason, job.notes);
  job.result = result;
  for (const attemptOf of job.attempts) saveRow(s, job, attemptOf, attemptOf.state ?? final, now, { reason: attemptOf.summary ?? reason, chars, recordId, text: attemptOf === attempt ? result.text : '' });
  wakeWaiters(job);
}

/** On every publish: a panel the board finished itself after a hard stop, a state to store, an idle spell to check. */
export function sweep(s: ServiceState): void {
  s.transcripts?.flush();
  const panels = s.outages ? s.board.getState().panels : [];
  for (const job of new Set(s.jobs.values())) {
    const attempt = job.attempts.at(-1);
    if (!attempt || attempt.settled) continue;
    if (attempt.hardStopped) {
      if (rowState(s, attempt.id, s.now()) !== undefined) {
        attempt.hold?.abort();
        attempt.hold = undefined;
        finishAttempt(s, job, attempt);
      }
      continue;
    }
    const state = panels.find((p) => p.id === attempt.id)?.state;
    if ((state === 'waiting' || state === 'running') && attempt.stored !== state) {
      attempt.stored = state;
      saveRow(s, job, attempt, state, s.now());
    }
    if (state === 'running') attempt.silenceChecked = false;
    else if (state === 'idle' && !attempt.silenceChecked && !attempt.hold) {
      attempt.silenceChecked = true;
      // Not inside the board's publish: the check may hold the panel, which publishes.
      queueMicrotask(() => checkSilence(s.steps, job, attempt));
    }
  }
}
