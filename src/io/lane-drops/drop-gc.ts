/**
 * `tai lane gc` (docs/lanes.md, "Undoing a drop"): removes the saved drops of
 * one repository older than the keep time (a week; `--older-than DAYS`, or
 * TAI_LANE_DROP_DAYS). Their objects go at git's own next `git gc` after its
 * prune time; until then `git fsck --lost-found` still finds them.
 */
import { expiredDrops, type SavedDrop } from '../../core/lanes/drop-record.js';
import { gitOk } from '../lanes/lane-git.js';
import { savedDrops } from './undrop.js';

/** What gc removed and what it kept. */
export interface DropGc {
  readonly removed: readonly SavedDrop[];
  readonly kept: readonly SavedDrop[];
}

/** Removes the drops of the repository at `top` saved more than `keepMs` before `now`. */
export async function gcDrops(top: string, now: number, keepMs: number): Promise<DropGc> {
  const all = await savedDrops(top);
  const removed = expiredDrops(all, now, keepMs);
  for (const d of removed) await gitOk(top, ['update-ref', '-d', d.ref]);
  const gone = new Set(removed.map((d) => d.ref));
  return { removed, kept: all.filter((d) => !gone.has(d.ref)) };
}
