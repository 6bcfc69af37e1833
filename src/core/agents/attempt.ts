/**
 * An agent attempt's life as one state machine, its phases running, held, storing and finished (docs/agents.md,
 * "An attempt's end"). Every decision is here, pure; src/io/agents/attempt-effects.ts carries out the effects. A
 * stop's end is final, never an outage; an outage's `ticket` is handed back untouched in the hold effect.
 */
import type { FinalState, PanelState } from '../panel/panel-state.js';

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
  /** How the agent ended while its panel was held (the wait decides what follows). */
  readonly endedDuringHold?: O;
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
  /** An outage wait gave its verdict: the hold is over, whatever follows. */
  | { readonly type: 'hold-over' }
  /** The outage wait restarts a fresh agent with the same task; `note` says why. */
  | { readonly type: 'restart'; readonly note: string }
  /** The attempt's end is decided: store its result and finish (no outcome: the board finished the panel). */
  | { readonly type: 'finish'; readonly outcome?: AttemptOutcome }
  /** The result is in its place. */
  | { readonly type: 'stored' };

/** What the adapter carries out, in order. */
export type AttemptEffect<T> =
  | { readonly kind: 'stop-agent'; readonly hard: boolean; readonly reason: string }
  | { readonly kind: 'abort-hold' }
  | { readonly kind: 'hold-failure'; readonly ticket: T; readonly outcome: AttemptOutcome }
  | { readonly kind: 'check-silence' }
  /** Start a fresh agent in the panel, then write its row as running. */
  | { readonly kind: 'restart-agent'; readonly note: string }
  | { readonly kind: 'save-row'; readonly state: PanelState }
  | { readonly kind: 'store-result'; readonly outcome?: AttemptOutcome }
  /** Finish the panel, end the transcript, give back the slot, then retry or answer the job. */
  | { readonly kind: 'conclude' };

/** What a step returns. */
export interface AttemptStep<O extends AttemptOutcome, T> {
  readonly state: AttemptState<O>;
  readonly effects: readonly AttemptEffect<T>[];
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
      const abort: AttemptEffect<T>[] = state.phase === 'held' ? [{ kind: 'abort-hold' }] : [];
      return { state: { ...state, stop }, effects: [...abort, { kind: 'stop-agent', hard: event.hard, reason: event.reason }] };
    }
    case 'board-finished':
      if (state.stop !== 'hard') return same;
      return finishing(state, undefined, state.phase === 'held' ? [{ kind: 'abort-hold' }] : []);
    case 'panel':
      // A hard-stopped panel waits for the board to finish it (`board-finished`).
      return state.stop === 'hard' ? same : panel(state, event.state, rules);
    case 'hold-over':
      return state.phase === 'held' ? { state: withoutEnded({ ...state, phase: 'running' }), effects: [] } : same;
    case 'restart':
      // The adapter writes the row once the fresh agent has started (one that does not start finishes the attempt).
      return {
        state: withoutEnded({ ...state, phase: 'running', restarts: state.restarts + 1, silenceChecked: false, stored: 'running' }),
        effects: [{ kind: 'restart-agent', note: event.note }],
      };
    case 'finish':
      return finishing(state, event.outcome, []);
    case 'stored':
      return same;
  }
}

/** The agent ended: kept for a hold's verdict, finished, or held for an outage. */
function ended<O extends AttemptOutcome, T>(state: AttemptState<O>, outcome: O, verdict: EndVerdict<T>, rules: AttemptRules): AttemptStep<O, T> {
  if (state.phase === 'held') return { state: { ...state, endedDuringHold: outcome }, effects: [{ kind: 'abort-hold' }] };
  if (state.stop !== 'none') return finishing(state, outcome, []);
  if (verdict.kind === 'final') return finishing(state, { ...outcome, summary: verdict.summary }, []);
  if (!rules.holds || state.restarts >= rules.restartsMax) {
    const more = rules.holds ? ` (restarted ${state.restarts} times after outages; not again)` : '';
    const summary = outcome.summary.includes(verdict.why) ? `${outcome.summary}${more}` : `${outcome.summary}: ${verdict.why}${more}`;
    return finishing(state, { ...outcome, summary }, []);
  }
  return { state: { ...state, phase: 'held' }, effects: [{ kind: 'hold-failure', ticket: verdict.ticket, outcome }] };
}

/** A live state on the board: stored when it changed, and an idle spell checked once against the probes. */
function panel<O extends AttemptOutcome, T>(state: AttemptState<O>, live: PanelState, rules: AttemptRules): AttemptStep<O, T> {
  const effects: AttemptEffect<T>[] = [];
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
function finishing<O extends AttemptOutcome, T>(state: AttemptState<O>, outcome: AttemptOutcome | undefined, before: AttemptEffect<T>[]): AttemptStep<O, T> {
  return { state: withoutEnded({ ...state, phase: 'storing' }), effects: [...before, outcome === undefined ? { kind: 'store-result' } : { kind: 'store-result', outcome }] };
}

function withoutEnded<O extends AttemptOutcome>(state: AttemptState<O>): AttemptState<O> {
  if (state.endedDuringHold === undefined) return state;
  const { endedDuringHold: _taken, ...rest } = state;
  return rest;
}

/** A finished attempt's job: a failed one with retries left starts its next attempt (`retry` on spawn); else it answers. */
export function jobAfter(final: FinalState, retriesLeft: number): 'retry' | 'answer' {
  return final === 'failed' && retriesLeft > 0 ? 'retry' : 'answer';
}
