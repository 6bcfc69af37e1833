import { describe, expect, it } from 'vitest';
import {
  OUTAGE_HOURLY_INTERVAL,
  OUTAGE_HOURLY_STAGE_LIMIT,
  OUTAGE_PROBE_AFTER_FIVE_MINUTES,
  OUTAGE_PROBE_AFTER_ONE_HOUR,
  OUTAGE_PROBE_AFTER_ONE_MINUTE,
  OUTAGE_PROBE_AFTER_TEN_MINUTES,
  isOutageStage,
  nextProbe,
  parseTimeScale,
  restartNotBefore,
  stageAfter,
  type OutageProgress,
  type ProbePlan,
} from '../../../src/core/outage/outage-schedule.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** 23:00 UTC on the day of the interview: the spec's "an outage at 23:00". */
const T0 = Date.UTC(2026, 9, 9, 23, 0, 0);

/** Fails every probe exactly when it is due and returns the probes made, until the schedule gives up. */
function failEveryProbe(scale: number, lateBy = 0): { at: number; stage: string }[] {
  const probes: { at: number; stage: string }[] = [];
  let outage: OutageProgress = { startedAt: T0, attempts: 0 };
  let plan: ProbePlan = nextProbe(outage, T0, scale);
  while (plan.kind === 'probe') {
    probes.push({ at: plan.at, stage: plan.stage });
    const failedAt = plan.at + lateBy;
    outage = { ...outage, attempts: outage.attempts + 1, hourlyStartedAt: outage.hourlyStartedAt ?? plan.hourlyStartedAt };
    plan = nextProbe(outage, failedAt, scale);
    if (plan.kind === 'probe' && plan.hourlyStartedAt !== undefined) outage = { ...outage, hourlyStartedAt: plan.hourlyStartedAt };
    if (probes.length > 100) throw new Error('the schedule never gave up');
  }
  return probes;
}

describe('the outage schedule', () => {
  it('names its steps as constants of 1 min, 5 min, 10 min, 1 h, hourly for 8 h', () => {
    expect([
      OUTAGE_PROBE_AFTER_ONE_MINUTE,
      OUTAGE_PROBE_AFTER_FIVE_MINUTES,
      OUTAGE_PROBE_AFTER_TEN_MINUTES,
      OUTAGE_PROBE_AFTER_ONE_HOUR,
      OUTAGE_HOURLY_INTERVAL,
      OUTAGE_HOURLY_STAGE_LIMIT,
    ]).toEqual([MINUTE, 5 * MINUTE, 10 * MINUTE, HOUR, HOUR, 8 * HOUR]);
  });

  it('probes one minute after the outage began', () => {
    expect(nextProbe({ startedAt: T0, attempts: 0 }, T0)).toEqual({ kind: 'probe', at: T0 + MINUTE, stage: 'one-minute' });
  });

  it('waits 5 min, 10 min and 1 h after the first, second and third failed probe', () => {
    const failedAt = T0 + 7 * MINUTE + 123;
    expect(nextProbe({ startedAt: T0, attempts: 1 }, failedAt)).toEqual({
      kind: 'probe',
      at: failedAt + 5 * MINUTE,
      stage: 'five-minutes',
    });
    expect(nextProbe({ startedAt: T0, attempts: 2 }, failedAt)).toEqual({
      kind: 'probe',
      at: failedAt + 10 * MINUTE,
      stage: 'ten-minutes',
    });
    expect(nextProbe({ startedAt: T0, attempts: 3 }, failedAt)).toEqual({ kind: 'probe', at: failedAt + HOUR, stage: 'one-hour' });
  });

  it('begins the hourly stage when the one-hour probe fails', () => {
    const failedAt = T0 + 76 * MINUTE;
    expect(nextProbe({ startedAt: T0, attempts: 4 }, failedAt)).toEqual({
      kind: 'probe',
      at: failedAt + HOUR,
      stage: 'hourly',
      hourlyStartedAt: failedAt,
    });
  });

  it('probes every hour of the hourly stage and gives up when the probe at its 8-hour mark fails', () => {
    const hourly = T0 + 76 * MINUTE;
    const outage = (attempts: number): OutageProgress => ({ startedAt: T0, attempts, hourlyStartedAt: hourly });
    expect(nextProbe(outage(5), hourly + HOUR)).toEqual({ kind: 'probe', at: hourly + 2 * HOUR, stage: 'hourly', hourlyStartedAt: hourly });
    expect(nextProbe(outage(11), hourly + 7 * HOUR)).toEqual({ kind: 'probe', at: hourly + 8 * HOUR, stage: 'hourly', hourlyStartedAt: hourly });
    expect(nextProbe(outage(12), hourly + 8 * HOUR - 1)).toEqual({ kind: 'probe', at: hourly + 8 * HOUR, stage: 'hourly', hourlyStartedAt: hourly });
    expect(nextProbe(outage(12), hourly + 8 * HOUR)).toEqual({ kind: 'give-up' });
    expect(nextProbe(outage(12), hourly + 9 * HOUR)).toEqual({ kind: 'give-up' });
  });

  it('puts the last probe on the 8-hour mark even when earlier probes ran late', () => {
    const hourly = T0 + 76 * MINUTE;
    const late = hourly + 7 * HOUR + 40 * MINUTE;
    expect(nextProbe({ startedAt: T0, attempts: 11, hourlyStartedAt: hourly }, late)).toEqual({
      kind: 'probe',
      at: hourly + 8 * HOUR,
      stage: 'hourly',
      hourlyStartedAt: hourly,
    });
  });

  it('retries an outage at 23:00 until 08:16 the next morning, twelve probes in all, then gives up', () => {
    const probes = failEveryProbe(1);
    const offsets = probes.map((probe) => (probe.at - T0) / MINUTE);
    expect(offsets).toEqual([1, 6, 16, 76, 136, 196, 256, 316, 376, 436, 496, 556]);
    expect(probes.map((probe) => probe.stage)).toEqual([
      'one-minute', 'five-minutes', 'ten-minutes', 'one-hour',
      'hourly', 'hourly', 'hourly', 'hourly', 'hourly', 'hourly', 'hourly', 'hourly',
    ]);
    expect(new Date(probes.at(-1)?.at ?? 0).toISOString()).toBe('2026-10-10T08:16:00.000Z');
  });

  it('measures each wait from when the failure was recorded, so slow probes shift the schedule', () => {
    const probes = failEveryProbe(1, 30_000);
    expect(probes.slice(0, 4).map((probe) => (probe.at - T0) / 1000)).toEqual([60, 60 + 30 + 300, 390 + 30 + 600, 1020 + 30 + 3600]);
    expect(probes.at(-1)?.at).toBe(probes[3]!.at + 30_000 + 8 * HOUR);
  });

  it('shrinks every step by the time scale, so 0.001 makes a minute 60 ms', () => {
    const probes = failEveryProbe(0.001);
    expect(probes.map((probe) => probe.at - T0)).toEqual([60, 360, 960, 4560, 8160, 11760, 15360, 18960, 22560, 26160, 29760, 33360]);
    expect(nextProbe({ startedAt: T0, attempts: 12, hourlyStartedAt: T0 }, T0 + 28_800, 0.001)).toEqual({ kind: 'give-up' });
  });

  it('names the pending stage after each number of failed probes', () => {
    expect([0, 1, 2, 3, 4, 9].map(stageAfter)).toEqual(['one-minute', 'five-minutes', 'ten-minutes', 'one-hour', 'hourly', 'hourly']);
    expect(isOutageStage('hourly')).toBe(true);
    expect(isOutageStage('two-hours')).toBe(false);
  });

  it('reads the time scale from its variable and refuses anything but a positive number', () => {
    expect(parseTimeScale(undefined)).toBe(1);
    expect(parseTimeScale('')).toBe(1);
    expect(parseTimeScale('0.001')).toBe(0.001);
    expect(() => parseTimeScale('0')).toThrow(
      'TAI_OUTAGE_TIME_SCALE must be a positive number (0.001 makes a minute 60 ms), got "0"',
    );
    expect(() => parseTimeScale('fast')).toThrow(RangeError);
    expect(() => nextProbe({ startedAt: T0, attempts: 0 }, T0, -1)).toThrow('the outage time scale must be a positive number, got -1');
    expect(() => nextProbe({ startedAt: T0, attempts: 1.5 }, T0)).toThrow(RangeError);
  });
});

describe('restartNotBefore: repeated outages of one agent widen', () => {
  it.each([
    [0, 0],
    [1, 5 * 60_000],
    [2, 10 * 60_000],
    [3, 60 * 60_000],
    [9, 60 * 60_000],
  ])('after %i restarts the panel stays held at least %i ms', (restarts, wait) => {
    expect(restartNotBefore(1_000, restarts) - 1_000).toBe(wait);
  });

  it('scales with the lab time scale', () => {
    expect(restartNotBefore(0, 1, 0.001)).toBe(300);
  });
});

