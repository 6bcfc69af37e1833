import { describe, expect, it } from 'vitest';
import { collisions, collisionsOf, collisionTag, collisionText, parseHunks, sameLines, WHOLE_FILE } from '../../../src/core/lanes/collisions.js';
import { BASE, mergeOrder } from '../../../src/core/lanes/merge-order.js';
import { hasWriteTreeMerge } from '../../../src/core/lanes/git-output.js';
import { COLLIDE_TIMING, changed, QUIET_TRIGGER, statDueAt, statStarted, statEnded } from '../../../src/core/lanes/stat-trigger.js';

describe('collisions between lanes', () => {
  it('pairs the lanes that changed a file in common, and tells each lane the other', () => {
    const all = collisions([
      { name: 'a', files: ['x.ts', 'y.ts'] },
      { name: 'b', files: ['y.ts', 'x.ts', 'z.ts'] },
      { name: 'c', files: ['q.ts'] },
    ]);
    expect(all).toEqual([{ a: 'a', b: 'b', files: ['x.ts', 'y.ts'] }]);
    expect(collisionsOf('b', all)).toEqual([{ other: 'a', files: ['x.ts', 'y.ts'] }]);
    expect(collisionsOf('c', all)).toEqual([]);
  });

  it('reads the base lines of -U0 hunks: a change, an insertion, a deletion, a new file and a deleted one', () => {
    const diff = [
      'diff --git a/src/a.txt b/src/a.txt',
      'index 1..2 100644',
      '--- a/src/a.txt',
      '+++ b/src/a.txt',
      '@@ -2 +2 @@',
      '-two',
      '+TWO',
      '@@ -5,0 +6,2 @@',
      '+x',
      '+y',
      '@@ -8,3 +9,0 @@',
      'diff --git a/new.txt b/new.txt',
      'new file mode 100644',
      '--- /dev/null',
      '+++ b/new.txt',
      '@@ -0,0 +1 @@',
      '+n',
      'diff --git a/old.txt b/old.txt',
      'deleted file mode 100644',
      '--- a/old.txt',
      '+++ /dev/null',
      '@@ -1,2 +0,0 @@',
      '',
    ].join('\n');
    const spans = parseHunks(diff);
    expect(spans.get('src/a.txt')).toEqual([{ start: 2, end: 3 }, { start: 6, end: 6 }, { start: 8, end: 11 }]);
    expect(spans.get('new.txt')).toEqual([WHOLE_FILE]);
    expect(spans.get('old.txt')).toEqual([{ start: 1, end: 3 }]);
  });

  it('counts overlapping and adjacent changes as the same lines, and separate ones not', () => {
    expect(sameLines([{ start: 2, end: 3 }], [{ start: 2, end: 3 }])).toBe(true);
    expect(sameLines([{ start: 2, end: 3 }], [{ start: 3, end: 4 }])).toBe(true);
    expect(sameLines([{ start: 2, end: 3 }], [{ start: 10, end: 12 }])).toBe(false);
    expect(sameLines([WHOLE_FILE], [{ start: 40, end: 41 }])).toBe(true);
  });

  it('says a collision as a note and in a header, naming at most three files', () => {
    expect(collisionText({ other: 'b', files: ['x.ts'], sameLines: ['x.ts'] })).toBe('⚠ also changed by lane b: x.ts (same lines)');
    expect(collisionText({ other: 'b', files: ['a', 'b', 'c', 'd'], sameLines: ['c'] })).toBe('⚠ also changed by lane b: a, b, c and 1 more (same lines in c)');
    expect(collisionTag([{ other: 'b', files: ['x.ts'], sameLines: [] }, { other: 'c', files: ['y.ts'], sameLines: ['y.ts'] }])).toBe('⚠ b: x.ts · ⚠ c: y.ts (same lines)');
  });

  it('looks at a changed lane within a third of a second, and at most every 300 ms', () => {
    const t = changed(QUIET_TRIGGER, 1_000);
    expect(statDueAt(t, COLLIDE_TIMING)).toBe(1_050);
    const ran = statEnded(statStarted(t, 1_050));
    expect(statDueAt(changed(ran, 1_100), COLLIDE_TIMING)).toBe(1_350);
  });

  it('knows which git has merge-tree --write-tree', () => {
    expect(hasWriteTreeMerge('git version 2.39.5\n')).toBe(true);
    expect(hasWriteTreeMerge('git version 2.38.0')).toBe(true);
    expect(hasWriteTreeMerge('git version 2.37.1 (Apple Git-136)')).toBe(false);
    expect(hasWriteTreeMerge('git version 3.0.0')).toBe(true);
    expect(hasWriteTreeMerge('')).toBe(false);
  });
});

describe('the merge order with the fewest conflicts', () => {
  it('merges first the largest set of lanes that do not conflict, though the oldest lane conflicts with both others', () => {
    expect(mergeOrder(['wide', 'left', 'right'], [['wide', 'left'], ['wide', 'right']])).toEqual({
      order: ['left', 'right', 'wide'],
      conflicted: [{ lane: 'wide', with: ['left', 'right'] }],
      exact: true,
    });
  });

  it('keeps the age order when nothing conflicts, and puts a lane conflicting with its base branch with the conflicted', () => {
    expect(mergeOrder(['a', 'b', 'c'], [])).toEqual({ order: ['a', 'b', 'c'], conflicted: [], exact: true });
    expect(mergeOrder(['a', 'b'], [], ['a'])).toEqual({ order: ['b', 'a'], conflicted: [{ lane: 'a', with: [BASE] }], exact: true });
  });

  it('leaves two conflicted merges on a path of four lanes, and only the hub on a star of five', () => {
    // a-b-c-d: clean sets of two are {a,c}, {a,d}, {b,d}; no three.
    const order = mergeOrder(['a', 'b', 'c', 'd'], [['a', 'b'], ['b', 'c'], ['c', 'd']]);
    expect(order.conflicted).toHaveLength(2);
    const five = mergeOrder(['hub', 'x', 'y', 'z', 'w'], [['hub', 'x'], ['hub', 'y'], ['hub', 'z'], ['hub', 'w']]);
    expect(five.order).toEqual(['x', 'y', 'z', 'w', 'hub']);
    expect(five.conflicted).toEqual([{ lane: 'hub', with: ['x', 'y', 'z', 'w'] }]);
  });
});

describe('the merge order past the exact bound', () => {
  it('orders seventeen lanes greedily and says it is not exact', () => {
    const lanes = Array.from({ length: 17 }, (_, i) => `l${i}`);
    const order = mergeOrder(lanes, [['l0', 'l1']]);
    expect(order.exact).toBe(false);
    expect(order.conflicted).toEqual([{ lane: 'l1', with: ['l0'] }]);
  });
});
