/**
 * An agent attempt's life as one state machine, its phases running, held, storing and finished (docs/agents.md,
 * "An attempt's end"). Every decision is here, pure, the words of a hold's outcome too; src/io/agents/attempt-effects.ts
 * carries out the effects and the outage adapter only reports what a wait saw. A stop's end is final, never an
 * outage; an outage's `ticket` is handed back untouched in the hold effect.
 */
import type { FinalState, PanelState } from '../panel/panel-state.js';
import type { OutageService } from '../outage/classify.js';

/** How an agent ended by its own account (the runner's outcome). */
export interface AttemptOutcome {
  readonly state: 'done' | 'failed';
  readonly summary: string;
}

/** The adapter's verdict on an agent that ended on its own. */
export type EndVerdict<T> =
  | { readonly kind: 'final'; readonly summary: string }
  /** An outage (or a `NETWORK:` yield): `why` names it; `ticket` is what the hold needs. */
  | { readonly kind: 'outage'; readonly why: string; readonly ticket: T };

/** The outage a wait saw, as its texts name it. */
export interface SeenOutage {
  readonly id: number;
  readonly service: OutageService;
  /** Probes that failed. */
  readonly attempts: number;
}

/** A lane put back to its last commit before a fresh agent starts, and where its uncommitted edits went. */
export interface LaneReset {
  readonly head: string;
  readonly savedTo: string | null;
}

/** What an outage wait saw, as the outage adapter reports it. */
export type WaitSeen =
  /** The service is back; `reset` when the watch already reset the lane of an agent that yielded. */
  | { readonly verdict: 'back'; readonly outage: SeenOutage; readonly reset?: LaneReset }
  | { readonly verdict: 'gave-up'; readonly outage: SeenOutage }
  /** The wait was aborted (a stop, or the agent ended while held). */
  | { readonly verdict: 'aborted'; readonly outage: SeenOutage }
  /** The probes found no outage; `detail` says what they found. */
  | { readonly verdict: 'not-outage'; readonly detail: string }
  /** The wait itself failed with `error`. */
  | { readonly verdict: 'failed'; readonly error: string };

/** What a hold waited on: a dead agent's outage (`waitedFor` names it: the failure, or `NETWORK: <cmd>`), or an idle spell. */
export type HeldFor = { readonly for: 'failure'; readonly waitedFor: string } | { readonly for: 'silence' };

/** Where an attempt is in its life. */
export type AttemptPhase = 'running' | 'held' | 'storing' | 'finished';

/** An attempt's state; `O` is the runner's outcome. */
export interface AttemptState<O extends AttemptOutcome> {
  readonly phase: AttemptPhase;
  readonly stop: 'none' | 'soft' | 'hard';
  /** Fresh agents started in this panel after outages. */
  readonly restarts: number;
  /** The current idle spell was already checked against the probes. */
  readonly silenceChecked: boolean;
  /** How the agent ended while its panel was held, and whether that end was an outage (the wait decides what follows). */
  readonly endedDuringHold?: { readonly outcome: O; readonly outage: boolean };
  /** A restart waiting for its lane's reset: its note, and the failure (`: <error>` added) if the reset fails. */
  readonly resetting?: { readonly note: string; readonly failed: AttemptOutcome };
  /** The live state last written to the agent's row. */
  readonly stored: PanelState;
}

/** What the attempt is told. */
export type AttemptEvent<O extends AttemptOutcome, T> =
  /** The panel's agent ended (a later agent's end is the adapter's to route). */
  | { readonly type: 'ended'; readonly outcome: O; readonly verdict: EndVerdict<T> }
  /** Supervision asked the agent to stop: softly, or now. */
  | { readonly type: 'stop'; readonly hard: boolean; readonly reason: string }
  /** The board finished the panel itself (an agent that survived its hard stop). */
  | { readonly type: 'board-finished' }
  /** The board published the panel in this live state. */
  | { readonly type: 'panel'; readonly state: PanelState }
  /** The idle check asked for (`check-silence`) is due: its wait starts unless a stop or an end came first. */
  | { readonly type: 'silence-due' }
  /** An outage wait is over: what it waited on and what it saw. */
  | { readonly type: 'wait-over'; readonly held: HeldFor; readonly seen: WaitSeen }
  /** The lane of `reset-lane`: reset (`lane`), not a lane (neither), or its reset failed (`error`). */
  | { readonly type: 'lane-reset'; readonly lane?: LaneReset; readonly error?: string }
  /** The fresh agent of a restart could not start. */
  | { readonly type: 'start-failed'; readonly error: string }
  /** The result is in its place. */
  | { readonly type: 'stored' };

/** What the adapter carries out, in order. */
export type AttemptEffect<T, O extends AttemptOutcome = AttemptOutcome> =
  | { readonly kind: 'stop-agent'; readonly hard: boolean; readonly reason: string }
  | { readonly kind: 'abort-hold' }
  | { readonly kind: 'hold-failure'; readonly ticket: T; readonly outcome: AttemptOutcome }
  /** Queue the idle check (not inside the board's publish); it is due with `silence-due`. */
  | { readonly kind: 'check-silence' }
  | { readonly kind: 'wait-silence' }
  /** Reset the agent's lane, if its folder is one, then report `lane-reset`. */
  | { readonly kind: 'reset-lane'; readonly outage: SeenOutage }
  /** Cancel the panel as its owner (the wait gave up). */
  | { readonly kind: 'cancel'; readonly reason: string }
  | { readonly kind: 'note'; readonly text: string }
  /** The end kept during the hold, judged again and told as `ended`. */
  | { readonly kind: 'settle'; readonly outcome: O }
  /** Start a fresh agent in the panel, then write its row as running. */
  | { readonly kind: 'restart-agent'; readonly note: string }
  | { readonly kind: 'save-row'; readonly state: PanelState }
  | { readonly kind: 'store-result'; readonly outcome?: AttemptOutcome }
  /** Finish the panel, end the transcript, give back the slot, then retry or answer the job. */
  | { readonly kind: 'conclude' };

/** What a step returns. */
export interface AttemptStep<O extends AttemptOutcome, T> {
  readonly state: AttemptState<O>;
  readonly effects: readonly AttemptEffect<T, O>[];
}

/** What the machine knows of its service. */
export interface AttemptRules {
  /** Outages are waited out (an outage watch exists); else an outage fails the attempt like any failure. */
  readonly holds: boolean;
  /** At most this many fresh agents per panel after outages. */
  readonly restartsMax: number;
}

/** A new attempt: its first agent running. */
export function startedAttempt<O extends AttemptOutcome>(): AttemptState<O> {
  return { phase: 'running', stop: 'none', restarts: 0, silenceChecked: false, stored: 'running' };
}

/** One transition: the attempt's next state and the effects to carry out. */
export function step<O extends AttemptOutcome, T>(state: AttemptState<O>, event: AttemptEvent<O, T>, rules: AttemptRules): AttemptStep<O, T> {
  const same = { state, effects: [] };
  if (state.phase === 'storing' || state.phase === 'finished') return event.type === 'stored' && state.phase === 'storing' ? { state: { ...state, phase: 'finished' }, effects: [{ kind: 'conclude' }] } : same;
  switch (event.type) {
    case 'ended':
      return ended(state, event.outcome, event.verdict, rules);
    case 'stop': {
      const stop = event.hard ? 'hard' : state.stop === 'hard' ? 'hard' : 'soft';
      const abort: AttemptEffect<T, O>[] = state.phase === 'held' ? [{ kind: 'abort-hold' }] : [];
      return { state: { ...state, stop }, effects: [...abort, { kind: 'stop-agent', hard: event.hard, reason: event.reason }] };
    }
    case 'board-finished':
      if (state.stop !== 'hard') return same;
      return finishing(state, undefined, state.phase === 'held' ? [{ kind: 'abort-hold' }] : []);
    case 'panel':
      // A hard-stopped panel waits for the board to finish it (`board-finished`).
      return state.stop === 'hard' ? same : panel(state, event.state, rules);
    case 'silence-due':
      if (state.phase !== 'held') return same;
      // Stopped or ended before the check began: nothing to check; an end is judged as any end.
      if (state.stop !== 'none' || state.endedDuringHold !== undefined) return { state: released(state), effects: settling<O, T>(state) };
      return { state, effects: [{ kind: 'wait-silence' }] };
    case 'wait-over':
      if (state.phase !== 'held') return same;
      return event.held.for === 'failure' ? failureOver(state, event.held.waitedFor, event.seen) : silenceOver(state, event.seen);
    case 'lane-reset': {
      const pending = state.resetting;
      if (state.phase !== 'held' || pending === undefined) return same;
      if (event.error !== undefined) return finishing(state, { ...pending.failed, summary: `${pending.failed.summary}: ${event.error}` }, []);
      return restarting(state, event.lane === undefined ? pending.note : `${pending.note}; ${laneNote(event.lane)}`);
    }
    case 'start-failed':
      return finishing(state, { state: 'failed', summary: `the fresh agent could not start: ${event.error}` }, []);
    case 'stored':
      return same;
  }
}

/** The agent ended: kept for a hold's verdict, finished, or held for an outage. */
function ended<O extends AttemptOutcome, T>(state: AttemptState<O>, outcome: O, verdict: EndVerdict<T>, rules: AttemptRules): AttemptStep<O, T> {
  if (state.phase === 'held') return { state: { ...state, endedDuringHold: { outcome, outage: verdict.kind === 'outage' } }, effects: [{ kind: 'abort-hold' }] };
  if (state.stop !== 'none') return finishing(state, outcome, []);
  if (verdict.kind === 'final') return finishing(state, { ...outcome, summary: verdict.summary }, []);
  if (!rules.holds || state.restarts >= rules.restartsMax) {
    const more = rules.holds ? ` (restarted ${state.restarts} times after outages; not again)` : '';
    const summary = outcome.summary.includes(verdict.why) ? `${outcome.summary}${more}` : `${outcome.summary}: ${verdict.why}${more}`;
    return finishing(state, { ...outcome, summary }, []);
  }
  return { state: { ...state, phase: 'held' }, effects: [{ kind: 'hold-failure', ticket: verdict.ticket, outcome }] };
}

/** A dead agent's wait is over: a fresh agent when the service is back (its lane reset first), else the failure stands. */
function failureOver<O extends AttemptOutcome, T>(state: AttemptState<O>, waitedFor: string, seen: WaitSeen): AttemptStep<O, T> {
  switch (seen.verdict) {
    case 'back':
      // A yielded lane was reset by the watch itself.
      if (seen.reset !== undefined) return restarting(state, `the network is back (outage ${seen.outage.id}) after ${waitedFor}; ${laneNote(seen.reset)}`);
      return resettingLane(state, seen.outage, { state: 'failed', summary: `${waitedFor}; waiting the outage out failed` });
    case 'gave-up': {
      const reason = giveUpReason(seen.outage, waitedFor);
      return finishing(state, { state: 'failed', summary: reason }, [{ kind: 'cancel', reason }]);
    }
    case 'aborted':
      return finishing(state, { state: 'failed', summary: `stopped while waiting for the ${serviceName(seen.outage)} (${waitedFor})` }, []);
    case 'not-outage':
      return finishing(state, { state: 'failed', summary: seen.detail }, []);
    case 'failed':
      return finishing(state, { state: 'failed', summary: `${waitedFor}; waiting the outage out failed: ${seen.error}` }, []);
  }
}

/** An idle spell's wait is over: a live agent carries on; one that ended meanwhile is judged again (restarted if the outage killed it). */
function silenceOver<O extends AttemptOutcome, T>(state: AttemptState<O>, seen: WaitSeen): AttemptStep<O, T> {
  const ended = state.endedDuringHold;
  switch (seen.verdict) {
    case 'failed':
      return { state: released(state), effects: [{ kind: 'note', text: `the silence could not be checked against the network: ${seen.error}` }, ...settling<O, T>(state)] };
    case 'not-outage':
    case 'aborted':
      return { state: released(state), effects: settling<O, T>(state) };
    case 'back':
      if (ended === undefined) return { state: released(state), effects: [{ kind: 'note', text: `the ${serviceName(seen.outage)} is back (outage ${seen.outage.id}); the agent carries on` }] };
      if (!ended.outage) return { state: released(state), effects: settling<O, T>(state) };
      return resettingLane(state, seen.outage, { ...ended.outcome, summary: `${ended.outcome.summary}; the lane could not be reset` });
    case 'gave-up': {
      const reason = giveUpReason(seen.outage, 'silent past the idle limit');
      if (ended === undefined) return { state: released(state), effects: [{ kind: 'cancel', reason }] };
      return finishing(state, { state: 'failed', summary: reason }, [{ kind: 'cancel', reason }]);
    }
  }
}

/** The service is back and a fresh agent starts: its lane is reset first (`lane-reset` follows). */
function resettingLane<O extends AttemptOutcome, T>(state: AttemptState<O>, outage: SeenOutage, failed: AttemptOutcome): AttemptStep<O, T> {
  const note = `the ${serviceName(outage)} is back (outage ${outage.id}); a fresh agent starts with the same task`;
  return { state: { ...withoutEnded(state), resetting: { note, failed } }, effects: [{ kind: 'reset-lane', outage }] };
}

/** A fresh agent starts with the same task; the adapter writes the row once it has started (one that does not fails the attempt). */
function restarting<O extends AttemptOutcome, T>(state: AttemptState<O>, note: string): AttemptStep<O, T> {
  const next = withoutEnded({ ...state, phase: 'running', restarts: state.restarts + 1, silenceChecked: false, stored: 'running' });
  return { state: next, effects: [{ kind: 'restart-agent', note }] };
}

/** A live state on the board: stored when it changed, and an idle spell checked once against the probes. */
function panel<O extends AttemptOutcome, T>(state: AttemptState<O>, live: PanelState, rules: AttemptRules): AttemptStep<O, T> {
  const effects: AttemptEffect<T, O>[] = [];
  let next = state;
  if ((live === 'waiting' || live === 'running') && state.stored !== live) {
    next = { ...next, stored: live };
    effects.push({ kind: 'save-row', state: live });
  }
  if (live === 'running' && next.silenceChecked) next = { ...next, silenceChecked: false };
  else if (live === 'idle' && !next.silenceChecked && next.phase === 'running') {
    next = { ...next, silenceChecked: true };
    // Only with a watch and while no stop was asked: a stopping agent's silence is the stop's business.
    if (rules.holds && next.stop === 'none') {
      next = { ...next, phase: 'held' };
      effects.push({ kind: 'check-silence' });
    }
  }
  return { state: next, effects };
}

/** The attempt settles: its result is stored next (the adapter then sends `stored`). */
function finishing<O extends AttemptOutcome, T>(state: AttemptState<O>, outcome: AttemptOutcome | undefined, before: AttemptEffect<T, O>[]): AttemptStep<O, T> {
  return { state: withoutEnded({ ...state, phase: 'storing' }), effects: [...before, outcome === undefined ? { kind: 'store-result' } : { kind: 'store-result', outcome }] };
}

/** The hold is over and the agent (or its end, judged again) carries on. */
function released<O extends AttemptOutcome>(state: AttemptState<O>): AttemptState<O> {
  return withoutEnded({ ...state, phase: 'running' });
}

/** The end kept during the hold, to be judged again once the hold is over. */
function settling<O extends AttemptOutcome, T>(state: AttemptState<O>): AttemptEffect<T, O>[] {
  const ended = state.endedDuringHold;
  return ended === undefined ? [] : [{ kind: 'settle', outcome: ended.outcome }];
}

function withoutEnded<O extends AttemptOutcome>(state: AttemptState<O>): AttemptState<O> {
  if (state.endedDuringHold === undefined && state.resetting === undefined) return state;
  const { endedDuringHold: _ended, resetting: _resetting, ...rest } = state;
  return rest;
}

function serviceName(outage: SeenOutage): string {
  return outage.service === 'network' ? 'network' : 'model service';
}

/** Why a held agent was cancelled at give-up. */
function giveUpReason(outage: SeenOutage, waitedFor: string): string {
  return `gave up waiting for the ${serviceName(outage)} (outage ${outage.id}, ${outage.attempts} probes): ${waitedFor}`;
}

/** How a lane restart is told in its panel and result. */
function laneNote(lane: LaneReset): string {
  return `the lane restarts from its last commit ${lane.head.slice(0, 7)}; ${lane.savedTo === null ? 'it had no uncommitted edits' : `its uncommitted edits were saved aside to ${lane.savedTo}`}`;
}

/** A finished attempt's job: a failed one with retries left starts its next attempt (`retry` on spawn); else it answers. */
export function jobAfter(final: FinalState, retriesLeft: number): 'retry' | 'answer' {
  return final === 'failed' && retriesLeft > 0 ? 'retry' : 'answer';
}
