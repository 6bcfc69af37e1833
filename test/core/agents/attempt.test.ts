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
const net = { id: 7, service: 'network', attempts: 3 } as const;
const model = { id: 8, service: 'model', attempts: 2 } as const;
const died = { for: 'failure', waitedFor: 'Could not resolve host' } as const;
const yielded = { for: 'failure', waitedFor: 'NETWORK: npm ci' } as const;
const silence = { for: 'silence' } as const;
const endedHeld = (end: AttemptOutcome, wasOutage: boolean): State => ({ ...held, endedDuringHold: { outcome: end, outage: wasOutage } });
const back = `the network is back (outage 7); a fresh agent starts with the same task`;
const reset = { head: '0123456789abcdef', savedTo: null };

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
  ['a due idle check starts the silence wait', held, { type: 'silence-due' }, HOLDS, 'held', [{ kind: 'wait-silence' }]],
  ['a due idle check after a stop releases the panel, nothing checked', { ...held, stop: 'soft' }, { type: 'silence-due' }, HOLDS, 'running', []],
  ['a due idle check after the agent ended judges that end again', endedHeld(failed, true), { type: 'silence-due' }, HOLDS, 'running', [{ kind: 'settle', outcome: failed }]],
  ['a due idle check of a panel no longer held is ignored', running, { type: 'silence-due' }, HOLDS, 'running', []],
  ['a dead agent\'s service back resets its lane before the fresh agent', held, { type: 'wait-over', held: died, seen: { verdict: 'back', outage: net } }, HOLDS, 'held', [{ kind: 'reset-lane', outage: net }]],
  ['a yielded lane reset by the watch restarts at once', held, { type: 'wait-over', held: yielded, seen: { verdict: 'back', outage: net, reset: { head: '0123456789', savedTo: '/s/e.patch' } } }, HOLDS, 'running', [{ kind: 'restart-agent', note: 'the network is back (outage 7) after NETWORK: npm ci; the lane restarts from its last commit 0123456; its uncommitted edits were saved aside to /s/e.patch' }]],
  ['a lane reset restarts with the lane\'s note', { ...held, resetting: { note: back, failed } }, { type: 'lane-reset', lane: reset }, HOLDS, 'running', [{ kind: 'restart-agent', note: `${back}; the lane restarts from its last commit 0123456; it had no uncommitted edits` }]],
  ['no lane to reset restarts with the note alone', { ...held, resetting: { note: back, failed } }, { type: 'lane-reset' }, HOLDS, 'running', [{ kind: 'restart-agent', note: back }]],
  ['a lane that could not be reset fails the attempt', { ...held, resetting: { note: back, failed: { state: 'failed', summary: 'x; waiting the outage out failed' } } }, { type: 'lane-reset', error: 'EACCES' }, HOLDS, 'storing', [{ kind: 'store-result', outcome: { state: 'failed', summary: 'x; waiting the outage out failed: EACCES' } }]],
  ['a lane reset nobody waits for is ignored', held, { type: 'lane-reset', lane: reset }, HOLDS, 'held', []],
  ['a dead agent\'s wait given up cancels the panel and fails', held, { type: 'wait-over', held: died, seen: { verdict: 'gave-up', outage: model } }, HOLDS, 'storing', [{ kind: 'cancel', reason: 'gave up waiting for the model service (outage 8, 2 probes): Could not resolve host' }, { kind: 'store-result', outcome: { state: 'failed', summary: 'gave up waiting for the model service (outage 8, 2 probes): Could not resolve host' } }]],
  ['a dead agent\'s wait aborted by a stop fails', { ...held, stop: 'soft' }, { type: 'wait-over', held: died, seen: { verdict: 'aborted', outage: net } }, HOLDS, 'storing', [{ kind: 'store-result', outcome: { state: 'failed', summary: 'stopped while waiting for the network (Could not resolve host)' } }]],
  ['a dead agent with no outage found fails with the probes\' word', held, { type: 'wait-over', held: died, seen: { verdict: 'not-outage', detail: 'the network probe succeeded' } }, HOLDS, 'storing', [{ kind: 'store-result', outcome: { state: 'failed', summary: 'the network probe succeeded' } }]],
  ['a dead agent\'s wait that failed fails the attempt', held, { type: 'wait-over', held: died, seen: { verdict: 'failed', error: 'db locked' } }, HOLDS, 'storing', [{ kind: 'store-result', outcome: { state: 'failed', summary: 'Could not resolve host; waiting the outage out failed: db locked' } }]],
  ['a wait over for a panel no longer held is ignored', running, { type: 'wait-over', held: died, seen: { verdict: 'back', outage: net } }, HOLDS, 'running', []],
  ['a silent agent back carries on, said in its panel', held, { type: 'wait-over', held: silence, seen: { verdict: 'back', outage: model } }, HOLDS, 'running', [{ kind: 'note', text: 'the model service is back (outage 8); the agent carries on' }]],
  ['a silent agent that ended for good meanwhile is judged again', endedHeld(done, false), { type: 'wait-over', held: silence, seen: { verdict: 'back', outage: net } }, HOLDS, 'running', [{ kind: 'settle', outcome: done }]],
  ['a silent agent the outage killed restarts, its lane reset first', endedHeld(failed, true), { type: 'wait-over', held: silence, seen: { verdict: 'back', outage: net } }, HOLDS, 'held', [{ kind: 'reset-lane', outage: net }]],
  ['a silence found no outage releases the panel and judges an end again', endedHeld(failed, true), { type: 'wait-over', held: silence, seen: { verdict: 'not-outage', detail: 'fine' } }, HOLDS, 'running', [{ kind: 'settle', outcome: failed }]],
  ['a silence check that failed says so and judges an end again', endedHeld(failed, true), { type: 'wait-over', held: silence, seen: { verdict: 'failed', error: 'boom' } }, HOLDS, 'running', [{ kind: 'note', text: 'the silence could not be checked against the network: boom' }, { kind: 'settle', outcome: failed }]],
  ['a silent live agent given up is cancelled', held, { type: 'wait-over', held: silence, seen: { verdict: 'gave-up', outage: net } }, HOLDS, 'running', [{ kind: 'cancel', reason: 'gave up waiting for the network (outage 7, 3 probes): silent past the idle limit' }]],
  ['a silent agent that ended, given up, is cancelled and fails', endedHeld(failed, true), { type: 'wait-over', held: silence, seen: { verdict: 'gave-up', outage: net } }, HOLDS, 'storing', [{ kind: 'cancel', reason: 'gave up waiting for the network (outage 7, 3 probes): silent past the idle limit' }, { kind: 'store-result', outcome: { state: 'failed', summary: 'gave up waiting for the network (outage 7, 3 probes): silent past the idle limit' } }]],
  ['a fresh agent that could not start fails the attempt', running, { type: 'start-failed', error: 'ENOENT' }, HOLDS, 'storing', [{ kind: 'store-result', outcome: { state: 'failed', summary: 'the fresh agent could not start: ENOENT' } }]],
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
    const next = step<AttemptOutcome, 'ticket'>({ ...held, silenceChecked: true, resetting: { note: 'back', failed }, restarts: 2 }, { type: 'lane-reset' }, HOLDS);
    expect(next.state).toEqual({ phase: 'running', stop: 'none', restarts: 3, silenceChecked: false, stored: 'running' });
  });

  it('keeps a silent agent\'s end, state and all, for a lane that could not be reset', () => {
    const waiting = step<AttemptOutcome, 'ticket'>(endedHeld(done, true), { type: 'wait-over', held: silence, seen: { verdict: 'back', outage: net } }, HOLDS);
    expect(waiting.state.endedDuringHold).toBeUndefined();
    const failedReset = step<AttemptOutcome, 'ticket'>(waiting.state, { type: 'lane-reset', error: 'EBUSY' }, HOLDS);
    expect(failedReset.effects).toEqual([{ kind: 'store-result', outcome: { state: 'done', summary: 'exit 0; the lane could not be reset: EBUSY' } }]);
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
