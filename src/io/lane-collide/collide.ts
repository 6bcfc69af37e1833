/**
 * The folder `src/io/lane-collide/`: lanes that collide (docs/lanes.md, "Collisions"). This file: a repository's
 * collisions as `tai lane list` and the panels say them, the pairs sharing a path and, for those paths, whether
 * both changed the same lines (src/core/lanes/collisions.ts).
 */
import { collisions, sameLines, type CollisionWith, type LaneTouch } from '../../core/lanes/collisions.js';
import type { StoredLane } from '../lanes/lane-store.js';
import { touchedLines } from './touched.js';

/** Each lane's collisions with the others of `touches` (lanes of one repository); only lanes that collide have an entry. */
export async function collisionsAmong(lanes: readonly StoredLane[], touches: readonly LaneTouch[]): Promise<Map<string, CollisionWith[]>> {
  const byName = new Map(lanes.map((l) => [l.name, l]));
  const found = new Map<string, CollisionWith[]>();
  for (const c of collisions(touches)) {
    const a = byName.get(c.a);
    const b = byName.get(c.b);
    if (!a || !b) continue;
    const [linesA, linesB] = await Promise.all([touchedLines(a, c.files), touchedLines(b, c.files)]);
    // A path whose content did not change in one lane (its stat only) is no collision.
    const files = c.files.filter((f) => linesA.has(f) && linesB.has(f));
    if (files.length === 0) continue;
    const same = files.filter((f) => sameLines(linesA.get(f) ?? [], linesB.get(f) ?? []));
    found.set(c.a, [...(found.get(c.a) ?? []), { other: c.b, files, sameLines: same }]);
    found.set(c.b, [...(found.get(c.b) ?? []), { other: c.a, files, sameLines: same }]);
  }
  return found;
}
