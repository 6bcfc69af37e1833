import { describe, expect, it } from 'vitest';
import { afterEvent, decisionDueAt, finalState, isLive, watchdog, type Supervised } from '../../../src/core/panel/panel-state.js';

const T0 = 10_000;
const running: Supervised = { state: 'running', startedAt: T0, lastEventAt: T0 };

describe('watchdog', () => {
  it.each([
    ['nothing before 60 s of silence', running, T0 + 59_999, []],
    ['idle at 60 s of silence', running, T0 + 60_000, [{ type: 'idle' }]],
    ['nothing more while already idle', { ...running, state: 'idle' }, T0 + 120_000, []],
    [
      'a soft stop at 300 s of silence',
      { ...running, state: 'idle' },
      T0 + 300_000,
      [{ type: 'soft_stop', cause: 'idle', reason: 'no event for 300s' }],
    ],
    [
      'a soft stop when the wall clock runs out',
      { ...running, deadline: T0 + 30_000 },
      T0 + 30_000,
      [{ type: 'soft_stop', cause: 'wall_clock', reason: 'time limit reached (30s)' }],
    ],
    ['no second soft stop during the grace', { ...running, stop: { cause: 'user', reason: 'x', at: T0 } }, T0 + 4_999, []],
    ['a hard stop after the grace', { ...running, stop: { cause: 'user', reason: 'x', at: T0 } }, T0 + 5_000, [{ type: 'hard_stop' }]],
    [
      'a forced finish one grace after the hard stop',
      { ...running, stop: { cause: 'user', reason: 'x', at: T0, hardAt: T0 + 5_000 } },
      T0 + 10_000,
      [{ type: 'force_finish' }],
    ],
    ['no idle clock for an agent waiting for the network', { ...running, state: 'waiting' }, T0 + 900_000, []],
    ['removal of a finished panel at its close time', { ...running, state: 'done', closeAt: T0 + 20_000 }, T0 + 20_000, [{ type: 'remove' }]],
    ['nothing for a finished panel before its close time', { ...running, state: 'failed', closeAt: T0 + 20_000 }, T0 + 19_999, []],
  ] as const)('decides %s', (_name, panel, now, decisions) => {
    expect(watchdog(panel as Supervised, now)).toEqual(decisions);
  });
});

describe('state machine', () => {
  it('returns an idle or queued agent to running on an event and leaves final states alone', () => {
    expect(afterEvent('idle')).toBe('running');
    expect(afterEvent('queued')).toBe('running');
    expect(afterEvent('done')).toBe('done');
    expect(afterEvent('cancelled')).toBe('cancelled');
  });

  it('lets a requested stop decide the final state, even when the agent reports done', () => {
    const at = { reason: 'r', at: 0 };
    expect(finalState('failed', { cause: 'wall_clock', ...at })).toBe('timeout');
    expect(finalState('failed', { cause: 'user', ...at })).toBe('cancelled');
    expect(finalState('failed', { cause: 'idle', ...at })).toBe('cancelled');
    expect(finalState('done', { cause: 'user', ...at })).toBe('cancelled');
    expect(finalState('done', { cause: 'wall_clock', ...at })).toBe('timeout');
    expect(finalState('done', undefined)).toBe('done');
    expect(finalState('failed', undefined)).toBe('failed');
  });

  it('knows which states are live', () => {
    expect(['queued', 'running', 'idle', 'waiting'].every((s) => isLive(s as never))).toBe(true);
    expect(['done', 'failed', 'timeout', 'cancelled'].some((s) => isLive(s as never))).toBe(false);
  });
});

describe('decisionDueAt (the clock of a board nobody sees)', () => {
  const T = 1_000_000;
  const shapes: Supervised[] = [
    { state: 'running', startedAt: T, lastEventAt: T + 5_000 },
    { state: 'idle', startedAt: T, lastEventAt: T + 5_000 },
    { state: 'running', startedAt: T, lastEventAt: T, deadline: T + 30_000 },
    { state: 'idle', startedAt: T, lastEventAt: T, idleKillMs: 90_000, deadline: T + 600_000 },
    { state: 'running', startedAt: T, lastEventAt: T, stop: { cause: 'user', reason: 'x', at: T + 2_000 } },
    { state: 'running', startedAt: T, lastEventAt: T, stop: { cause: 'user', reason: 'x', at: T + 2_000, hardAt: T + 7_000 } },
    { state: 'done', startedAt: T, lastEventAt: T, closeAt: T + 9_000 },
  ];

  it('is the first moment the watchdog decides something: nothing a millisecond before', () => {
    for (const panel of shapes) {
      const due = decisionDueAt(panel, T);
      expect(due, panel.state).toBeDefined();
      expect(watchdog(panel, due! - 1), JSON.stringify(panel)).toEqual([]);
      expect(watchdog(panel, due!).length, JSON.stringify(panel)).toBeGreaterThan(0);
    }
  });

  it('is now while an agent asks or is held: their ends come from outside', () => {
    expect(decisionDueAt({ state: 'asking', startedAt: T, lastEventAt: T }, T + 1)).toBe(T + 1);
    expect(decisionDueAt({ state: 'waiting', startedAt: T, lastEventAt: T }, T + 1)).toBe(T + 1);
    expect(decisionDueAt({ state: 'done', startedAt: T, lastEventAt: T }, T)).toBeUndefined();
  });
});
