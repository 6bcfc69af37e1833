import { describe, expect, it } from 'vitest';
import { LANE_STAT_EVERY_MS, LANE_STAT_MAX_EVERY_MS, nextStatEvery } from '../../../src/core/lanes/stat-schedule.js';

describe("a live lane's diff stat schedule", () => {
  it('doubles the wait while the lane is quiet, up to 80 s, and comes back to 5 s when its agent tells something or the stat changes', () => {
    const waits: number[] = [];
    let every = LANE_STAT_EVERY_MS;
    for (let i = 0; i < 6; i++) waits.push((every = nextStatEvery(every, true)));
    expect(waits).toEqual([10_000, 20_000, 40_000, 80_000, 80_000, 80_000]);
    expect(LANE_STAT_MAX_EVERY_MS).toBe(80_000);
    expect(nextStatEvery(80_000, false)).toBe(5_000);
  });
});
