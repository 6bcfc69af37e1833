/** The attempt's state machine (src/core/agents/attempt.ts), transition by transition. */
import { describe, expect, it } from 'vitest';
import { jobAfter, startedAttempt, step, type AttemptEvent, type AttemptOutcome, type AttemptRules, type AttemptState } from '../../../src/core/agents/attempt.js';

type State = AttemptState<AttemptOutcome>;
type Event = AttemptEvent<AttemptOutcome, 'ticket'>;

const HOLDS: AttemptRules = { holds: true, restartsMax: 10 };
const NO_WATCH: AttemptRules = { holds: false, restartsMax: 10 };
const running: State = startedAttempt();
const held: State = { ...running, phase: 'held' };
const failed: AttemptOutcome = { state: 'failed', summary: 'exit 128' };
const done: AttemptOutcome = { state: 'done', summary: 'exit 0' };
const outage = { kind: 'outage', why: 'Could not resolve host', ticket: 'ticket' } as const;

/** [name, state before, event, rules, phase after, effects' kinds (with their one detail)] */
const TABLE: readonly (readonly [string, State, Event, AttemptRules, State['phase'], readonly unknown[]])[] = [
  ['an agent done on its own finishes with the verdict\'s summary', running, { type: 'ended', outcome: done, verdict: { kind: 'final', summary: 'exit 0' } }, HOLDS, 'storing', [{ kind: 'store-result', outcome: done }]],
  ['a lost connection holds the panel with the ticket', running, { type: 'ended', outcome: failed, verdict: outage }, HOLDS, 'held', [{ kind: 'hold-failure', ticket: 'ticket', outcome: failed }]],
  ['a lost connection without a watch fails, its why said once', running, { type: 'ended', outcome: failed, verdict: outage }, NO_WATCH, 'storing', [{ kind: 'store-result', outcome: { state: 'failed', summary: 'exit 128: Could not resolve host' } }]],
  ['a lost connection after the last restart fails and says so', { ...running, restarts: 10 }, { type: 'ended', outcome: failed, verdict: outage }, HOLDS, 'storing', [{ kind: 'store-result', outcome: { state: 'failed', summary: 'exit 128: Could not resolve host (restarted 10 times after outages; not again)' } }]],
  ['an end after a stop was asked is final, never an outage', { ...running, stop: 'soft' }, { type: 'ended', outcome: failed, verdict: outage }, HOLDS, 'storing', [{ kind: 'store-result', outcome: failed }]],
  ['an end while held is kept for the wait, which is aborted', held, { type: 'ended', outcome: failed, verdict: outage }, HOLDS, 'held', [{ kind: 'abort-hold' }]],
  ['a soft stop while running stops the agent', running, { type: 'stop', hard: false, reason: 'tai cancel' }, HOLDS, 'running', [{ kind: 'stop-agent', hard: false, reason: 'tai cancel' }]],
  ['a hard stop while held ends the wait first', held, { type: 'stop', hard: true, reason: 'grace' }, HOLDS, 'held', [{ kind: 'abort-hold' }, { kind: 'stop-agent', hard: true, reason: 'grace' }]],
  ['the board finishing a hard-stopped panel settles it without an outcome', { ...running, stop: 'hard' }, { type: 'board-finished' }, HOLDS, 'storing', [{ kind: 'store-result' }]],
  ['the board finishing a panel nobody stopped hard changes nothing', running, { type: 'board-finished' }, HOLDS, 'running', []],
  ['a panel gone idle is checked against the probes once', running, { type: 'panel', state: 'idle' }, HOLDS, 'held', [{ kind: 'check-silence' }]],
  ['a panel gone idle without a watch is not checked', running, { type: 'panel', state: 'idle' }, NO_WATCH, 'running', []],
  ['an idle spell already checked is not checked again', { ...running, silenceChecked: true }, { type: 'panel', state: 'idle' }, HOLDS, 'running', []],
  ['a held panel\'s state is written to its row once', held, { type: 'panel', state: 'waiting' }, HOLDS, 'held', [{ kind: 'save-row', state: 'waiting' }]],
  ['the hold\'s verdict releases the panel', { ...held, endedDuringHold: failed }, { type: 'hold-over' }, HOLDS, 'running', []],
  ['a restart starts a fresh agent and counts it', held, { type: 'restart', note: 'the network is back' }, HOLDS, 'running', [{ kind: 'restart-agent', note: 'the network is back' }]],
  ['a finish decided by the wait stores the result', held, { type: 'finish', outcome: failed }, HOLDS, 'storing', [{ kind: 'store-result', outcome: failed }]],
  ['a stored result concludes the attempt', { ...running, phase: 'storing' }, { type: 'stored' }, HOLDS, 'finished', [{ kind: 'conclude' }]],
  ['a settled attempt ignores a late end', { ...running, phase: 'storing' }, { type: 'ended', outcome: done, verdict: { kind: 'final', summary: 'x' } }, HOLDS, 'storing', []],
  ['a finished attempt ignores a stop', { ...running, phase: 'finished' }, { type: 'stop', hard: true, reason: 'x' }, HOLDS, 'finished', []],
];

describe('an attempt\'s transitions', () => {
  it.each(TABLE)('%s', (_name, before, event, rules, phase, effects) => {
    const next = step(before, event, rules);
    expect(next.state.phase).toBe(phase);
    expect(next.effects).toEqual(effects);
  });

  it('counts restarts, clears the idle check and forgets an end kept during the hold', () => {
    const next = step<AttemptOutcome, 'ticket'>({ ...held, silenceChecked: true, endedDuringHold: failed, restarts: 2 }, { type: 'restart', note: 'back' }, HOLDS);
    expect(next.state).toEqual({ phase: 'running', stop: 'none', restarts: 3, silenceChecked: false, stored: 'running' });
  });

  it('keeps a hard stop hard when a soft one follows', () => {
    expect(step<AttemptOutcome, 'ticket'>({ ...running, stop: 'hard' }, { type: 'stop', hard: false, reason: 'x' }, HOLDS).state.stop).toBe('hard');
  });

  it('checks an idle spell again after the panel ran', () => {
    const ran = step<AttemptOutcome, 'ticket'>({ ...running, silenceChecked: true }, { type: 'panel', state: 'running' }, HOLDS);
    expect(ran.state.silenceChecked).toBe(false);
    expect(step<AttemptOutcome, 'ticket'>(ran.state, { type: 'panel', state: 'idle' }, HOLDS).effects).toEqual([{ kind: 'check-silence' }]);
  });
});

describe('a finished attempt\'s job', () => {
  it('retries only a failure with retries left; every other end answers', () => {
    expect(jobAfter('failed', 1)).toBe('retry');
    expect(jobAfter('failed', 0)).toBe('answer');
    for (const final of ['done', 'timeout', 'cancelled'] as const) expect(jobAfter(final, 3)).toBe('answer');
  });
});
