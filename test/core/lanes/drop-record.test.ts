import { describe, expect, it } from 'vitest';
import { dropKeepMs, dropMessage, dropNameOf, dropRef, expiredDrops, parseDropMessage, parseDropRefs, type DroppedLane } from '../../../src/core/lanes/drop-record.js';

const DAY = 86_400_000;

describe('a saved drop', () => {
  it('is a ref per drop, sortable by time, whose name gives the lane back', () => {
    const ref = dropRef('fix-it', Date.UTC(2026, 11, 4, 19, 44, 9, 123));
    expect(ref).toBe('refs/tai/drops/fix-it/20261204T194409.123Z');
    expect(dropNameOf(ref)).toBe('fix-it');
    expect(dropNameOf('refs/heads/main')).toBeUndefined();
  });

  it('carries the lane in its message, and a message of another commit is none', () => {
    const lane: DroppedLane = { name: 'x', branch: 'tai/x', base: 'b'.repeat(40), baseBranch: 'main', task: 'do\nit', agent: { kind: 'command' }, createdAt: 5, head: 'h'.repeat(40), files: 3, droppedAt: 9 };
    expect(parseDropMessage(dropMessage(lane))).toEqual(lane);
    expect(parseDropMessage('Merge branch x')).toBeUndefined();
    expect(parseDropMessage('tai lane drop x\n\nnot json')).toBeUndefined();
  });

  it('lists drops newest first and ages them by their committer date', () => {
    const drops = parseDropRefs('refs/tai/drops/a/1 100\nrefs/tai/drops/b/2 900\nrefs/heads/main 5\n\n');
    expect(drops.map((d) => d.name)).toEqual(['b', 'a']);
    expect(expiredDrops(drops, 900_000 + 7 * DAY, 7 * DAY).map((d) => d.name)).toEqual(['a']);
  });

  it("keeps drops a week, or the flag's days over the environment's, and refuses a bad value", () => {
    expect(dropKeepMs(undefined, undefined)).toBe(7 * DAY);
    expect(dropKeepMs(undefined, '')).toBe(7 * DAY);
    expect(dropKeepMs(undefined, '2')).toBe(2 * DAY);
    expect(dropKeepMs('0.5', '2')).toBe(DAY / 2);
    expect(dropKeepMs(undefined, '-1')).toBe("TAI_LANE_DROP_DAYS takes a number of days (0 or more, fractions allowed), not '-1'");
    expect(dropKeepMs('', undefined)).toBe("--older-than takes a number of days (0 or more, fractions allowed), not ''");
  });
});
