/**
 * The effects of an attempt's state machine (src/core/agents/attempt.ts): every event goes through `tell`, which
 * steps the machine and does what it says (stop, hold, restart, store through the claim check, finish, give the
 * slot back, retry or answer). The machine decides, this file acts; an outage wait only reports what it saw
 * (`wait-over`) and the machine decides what follows (docs/agents.md, "An attempt's end").
 */
import { jobAfter, step, type AttemptEffect, type AttemptEvent, type EndVerdict, type HeldFor, type SeenOutage, type WaitSeen } from '../../core/agents/attempt.js';
import { codePoints, needsRecord } from '../../core/agents/claim-check.js';
import { messageOf } from '../../core/errors.js';
import type { FinalState } from '../../core/panel/panel-state.js';
import { judgeAttempt, OUTAGE_RESTARTS_MAX, resetDiedLane, waitedForOf, waitOutFailure, waitOutSilence, type Judgement, type WaitingPanel } from '../outage/agent-outages.js';
import { startAgent, wakeWaiters, type Attempt, type Job } from './agent-jobs.js';
import { claimedOf, finalResult, type ClaimedResult } from './agent-results.js';
import { storeRecord } from './result-store.js';
import { newRecordId } from '../storage/records.js';
import type { RunOutcome } from './runners/runner.js';
import { boardRow, reasonOf, release, retire, rowState, saveRow, type ServiceState } from './service-state.js';

/** An outage the machine holds for: the judgement the wait needs. */
type Ticket = Exclude<Judgement, { kind: 'final' }>;

/** How each stored attempt ended and where its result went, for its conclusion. */
const ends = new WeakMap<Attempt, { readonly outcome: RunOutcome | undefined; readonly claimed: ClaimedResult }>();

/** Steps the attempt's machine with `event` and carries out its effects in order. */
export function tell(s: ServiceState, job: Job, attempt: Attempt, event: AttemptEvent<RunOutcome, Ticket>): void {
  const next = step(attempt.life, event, { holds: s.outages !== undefined, restartsMax: OUTAGE_RESTARTS_MAX });
  attempt.life = next.state;
  for (const effect of next.effects) perform(s, job, attempt, effect);
}

/** Tells the attempt when its current agent ends (a later agent in the panel has its own follower). */
export function followAttempt(s: ServiceState, job: Job, attempt: Attempt): void {
  const agent = attempt.agent;
  void agent.ended.then((outcome) => {
    if (attempt.agent === agent) tell(s, job, attempt, { type: 'ended', outcome, verdict: verdictOf(s, attempt, outcome) });
  });
}

/** The outage flows' verdict on an agent that ended on its own, for the machine. */
function verdictOf(s: ServiceState, attempt: Attempt, outcome: RunOutcome): EndVerdict<Ticket> {
  const judged = judgeAttempt(outcome, attempt.agent.result(), s.now());
  if (judged.kind === 'final') return { kind: 'final', summary: judged.summary };
  return { kind: 'outage', why: judged.kind === 'yielded' ? `handed back with NETWORK: ${judged.step}` : judged.classification.detail, ticket: judged };
}

function perform(s: ServiceState, job: Job, attempt: Attempt, effect: AttemptEffect<Ticket, RunOutcome>): void {
  switch (effect.kind) {
    case 'stop-agent':
      return effect.hard ? attempt.agent.hard(effect.reason) : attempt.agent.soft(effect.reason);
    case 'abort-hold':
      attempt.hold?.abort();
      return;
    case 'hold-failure': {
      const outages = s.outages;
      if (!outages) return;
      const held = { for: 'failure', waitedFor: waitedForOf(effect.ticket) } as const;
      return waitOut(s, job, attempt, held, (signal) => waitOutFailure(outages, waitingPanel(job, attempt), effect.ticket, signal));
    }
    case 'check-silence':
      // Not inside the board's publish: the check may hold the panel, which publishes.
      queueMicrotask(() => tell(s, job, attempt, { type: 'silence-due' }));
      return;
    case 'wait-silence': {
      const outages = s.outages;
      if (!outages) return;
      return waitOut(s, job, attempt, { for: 'silence' }, (signal) => waitOutSilence(outages, waitingPanel(job, attempt), signal));
    }
    case 'reset-lane':
      return resetLane(s, job, attempt, effect.outage);
    case 'cancel':
      s.outages?.tell?.(attempt.id, `cancelled: ${effect.reason}`);
      s.board.getState().cancel(attempt.id, effect.reason, s.now(), 'owner');
      return;
    case 'note':
      s.outages?.tell?.(attempt.id, effect.text);
      s.board.getState().emit(attempt.id, { type: 'note', text: effect.text }, s.now());
      return;
    case 'settle':
      return tell(s, job, attempt, { type: 'ended', outcome: effect.outcome, verdict: verdictOf(s, attempt, effect.outcome) });
    case 'restart-agent':
      s.outages?.tell?.(attempt.id, `restarted: ${effect.note}`);
      return restartAgent(s, job, attempt, effect.note);
    case 'save-row':
      return saveRow(s, job, attempt, effect.state, s.now());
    case 'store-result':
      return storeResult(s, job, attempt, effect.outcome);
    case 'conclude':
      return conclude(s, job, attempt);
  }
}

/** Runs one outage wait for the attempt and tells the machine what it saw, unless a later hold replaced it. */
function waitOut(s: ServiceState, job: Job, attempt: Attempt, held: HeldFor, wait: (signal: AbortSignal) => Promise<WaitSeen>): void {
  const hold = new AbortController();
  attempt.hold = hold;
  const over = (seen: WaitSeen): void => {
    if (attempt.hold !== hold) return;
    attempt.hold = undefined;
    tell(s, job, attempt, { type: 'wait-over', held, seen });
  };
  void wait(hold.signal).then(over, (err: unknown) => over({ verdict: 'failed', error: String(err) }));
}

/** The panel a wait is for, as the outage flows need it. */
function waitingPanel(job: Job, attempt: Attempt): WaitingPanel {
  return { panelId: attempt.id, label: job.label, task: job.task, cwd: job.spec.cwd, restarts: attempt.life.restarts };
}

/** Resets the attempt's lane (if its folder is one) before its fresh agent starts, and tells the machine how it went. */
function resetLane(s: ServiceState, job: Job, attempt: Attempt, outage: SeenOutage): void {
  const outages = s.outages;
  if (!outages) return;
  let lane;
  try {
    lane = resetDiedLane(outages, waitingPanel(job, attempt), outage, s.now());
  } catch (err) {
    return tell(s, job, attempt, { type: 'lane-reset', error: messageOf(err) });
  }
  tell(s, job, attempt, lane === undefined ? { type: 'lane-reset' } : { type: 'lane-reset', lane });
}

/** Starts a fresh agent with the job's task in the attempt's own panel (after an outage). */
function restartAgent(s: ServiceState, job: Job, attempt: Attempt, note: string): void {
  const now = s.now();
  job.notes.push(`#${attempt.id}: ${note}`);
  s.board.getState().emit(attempt.id, { type: 'note', text: note }, now);
  try {
    attempt.agent = startAgent(job, s.board, attempt.id, s.now);
  } catch (err) {
    tell(s, job, attempt, { type: 'start-failed', error: messageOf(err) });
    return;
  }
  saveRow(s, job, attempt, 'running', now);
  followAttempt(s, job, attempt);
}

/**
 * The attempt settled: a long result is stored before its reference is handed out, a locked database waited out
 * without blocking the loop (the panel stays live and says why); then the machine is told `stored`.
 */
function storeResult(s: ServiceState, job: Job, attempt: Attempt, outcome: RunOutcome | undefined): void {
  const raw = attempt.agent.result();
  const stored = (claimed: ClaimedResult): void => {
    ends.set(attempt, { outcome, claimed });
    tell(s, job, attempt, { type: 'stored' });
  };
  if (!needsRecord(raw)) return stored(claimedOf(raw, undefined));
  const id = newRecordId(s.now());
  const locked = (since: number): void =>
    s.board.getState().emit(attempt.id, { type: 'note', text: `the state database is locked; the result (${codePoints(raw)} characters) is stored as soon as it is free (waiting up to ${Math.round(s.store.waitMs / 1000)} s)` }, since);
  void storeRecord(s.store, raw, job.label, id, locked).then((place) => stored(claimedOf(raw, place)));
}

/** A stored attempt: finish the panel, end its transcript, give back the slot, retry or answer. */
function conclude(s: ServiceState, job: Job, attempt: Attempt): void {
  const end = ends.get(attempt);
  if (!end) return;
  // The attempt outlives its conclusion (the concluded jobs kept): the whole result is not kept with it.
  ends.delete(attempt);
  const { outcome, claimed } = end;
  const now = s.now();
  // The footer and the reason are one line, whatever the agent's message held (Gemini's 429 has two).
  const summary = `${(outcome?.summary ?? 'stopped').replace(/\s*[\r\n]+\s*/g, ' ')}${claimed.suffix}`;
  if (s.laneOf.has(job)) s.lanes?.ending(attempt.id);
  const final = outcome
    ? (s.board.getState().finish(attempt.id, outcome.state, summary, now) ?? rowState(s, attempt.id, now) ?? outcome.state)
    : (rowState(s, attempt.id, now) ?? 'cancelled');
  const row = boardRow(s, attempt.id, now);
  s.transcripts?.end(attempt.id, final, row?.elapsedMs ?? 0, row?.reason || summary, claimed.recordId === undefined ? undefined : { recordId: claimed.recordId, raw: claimed.raw });
  attempt.agent.finished?.(final);
  release(s, attempt.slot);
  attempt.slot = undefined;
  retryOrAnswer(s, job, attempt, final, claimed, now);
}

/** A finished attempt retries (failed, with retries left) or answers its job, waking the polls that wait. */
function retryOrAnswer(s: ServiceState, job: Job, attempt: Attempt, final: FinalState, claimed: ClaimedResult, now: number): void {
  const reason = reasonOf(s, attempt.id, now);
  const { chars, recordId } = claimed;
  attempt.state = final;
  attempt.summary = reason;
  if (jobAfter(final, job.retriesLeft) === 'retry') {
    job.retriesLeft--;
    job.notes.push(`attempt ${job.attempts.length} (#${attempt.id}): failed: ${reason}`);
    try {
      s.startAttempt(job, now);
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
  retire(s, job);
  for (const attemptOf of job.attempts) saveRow(s, job, attemptOf, attemptOf.state ?? final, now, { reason: attemptOf.summary ?? reason, chars, recordId, text: attemptOf === attempt ? result.text : '' });
  wakeWaiters(job);
}

/** On every publish: each live attempt is told its panel's state, and whether the board finished it. */
export function sweep(s: ServiceState): void {
  s.transcripts?.flush();
  // Without an outage watch nothing is held or checked: the live state is not looked up.
  const panels = s.outages ? s.board.getState().panels : [];
  for (const job of [...s.live]) {
    const attempt = job.attempts.at(-1);
    if (!attempt || attempt.life.phase === 'storing' || attempt.life.phase === 'finished') continue;
    if (attempt.life.stop === 'hard') {
      if (rowState(s, attempt.id, s.now()) !== undefined) tell(s, job, attempt, { type: 'board-finished' });
      continue;
    }
    const state = panels.find((p) => p.id === attempt.id)?.state;
    if (state !== undefined) tell(s, job, attempt, { type: 'panel', state });
  }
}
