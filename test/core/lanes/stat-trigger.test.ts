import { describe, expect, it } from 'vitest';
import { changed, LANE_STAT_GAP_MS, LANE_STAT_SETTLE_MAX_MS, LANE_STAT_SETTLE_MS, QUIET_TRIGGER, statDueAt, statEnded, statStarted, type StatTrigger } from '../../../src/core/lanes/stat-trigger.js';

describe("a watched lane's stat trigger", () => {
  it('asks for no stat while nothing changed, however much time passes', () => {
    expect(statDueAt(QUIET_TRIGGER)).toBeUndefined();
    const afterOne = statEnded(statStarted(changed(QUIET_TRIGGER, 1_000), 1_200));
    expect(statDueAt(afterOne)).toBeUndefined();
  });

  it('takes the first stat once a burst has been quiet for 200 ms', () => {
    let t = QUIET_TRIGGER;
    for (let at = 10_000; at < 10_150; at += 3) t = changed(t, at);
    expect(statDueAt(t)).toBe(10_147 + LANE_STAT_SETTLE_MS);
  });

  it('does not wait longer than 1 s after the first change for a lane that keeps changing', () => {
    let t = QUIET_TRIGGER;
    for (let at = 10_000; at < 13_000; at += 100) t = changed(t, at);
    expect(statDueAt(t)).toBe(10_000 + LANE_STAT_SETTLE_MAX_MS);
  });

  it('starts two stats at least 5 s apart, one at a time, and takes one more for changes made while one ran', () => {
    let t: StatTrigger = statStarted(changed(QUIET_TRIGGER, 10_000), 10_200);
    t = changed(t, 10_500);
    expect(statDueAt(t)).toBeUndefined();
    t = statEnded(t);
    expect(statDueAt(t)).toBe(10_200 + LANE_STAT_GAP_MS);
    t = statStarted(t, 15_200);
    expect(statDueAt(statEnded(t))).toBeUndefined();
  });

  it('takes a change long after the last stat at once the burst settles', () => {
    const t = changed(statEnded(statStarted(changed(QUIET_TRIGGER, 0), 200)), 60_000);
    expect(statDueAt(t)).toBe(60_000 + LANE_STAT_SETTLE_MS);
  });
});
