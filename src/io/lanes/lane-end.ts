/**
 * The two ways a lane's work ends without a merge (docs/lanes.md, "`tai lane`"): `tai lane drop` (refused with
 * unmerged commits or edits unless `--force`, and always while its agent runs) and `tai lane restart`, the
 * dead-lane restart by hand (src/io/outage/lane-restart.ts saves the edits).
 */
import { existsSync } from 'node:fs';
import { restartLane, type LaneRestart } from '../outage/lane-restart.js';
import { saveDrop, type SavedDropOf } from '../lane-drops/drop-save.js';
import { git } from './lane-git.js';
import { LaneError, refuseMissing, refuseWhileLive } from './lanes.js';
import { LaneStore, type StoredLane } from './lane-store.js';
import type { StateDb } from '../storage/state-db.js';

/** What a drop removed. */
export interface LaneDrop {
  readonly worktree: 'removed' | 'already gone';
  readonly branch: 'deleted' | 'already gone';
  /** Where a forced drop saved what the lane held (`tai lane undrop NAME` brings it back); null when it held nothing. */
  readonly saved: SavedDropOf | null;
}

/**
 * Removes the lane's worktree, branch and row; throws LaneError (nothing removed) when that would lose work and `force` is not set.
 * With `force`, what the lane holds is first saved under a drop ref (src/io/lane-drops/drop-save.ts), at `now`.
 */
export async function dropLane(db: StateDb, lane: StoredLane, force: boolean, now: number = Date.now()): Promise<LaneDrop> {
  refuseWhileLive(db, lane, 'drop');
  const present = existsSync(lane.worktree);
  const hasBranch = (await git(lane.top, ['show-ref', '--verify', '--quiet', `refs/heads/${lane.branch}`])).code === 0;
  if (!force) {
    const losses: string[] = [];
    if (hasBranch) {
      // Unmerged: commits on the lane that its base branch (or, with that branch gone, its base commit) does not have.
      const into = (await git(lane.top, ['rev-parse', '--verify', '--quiet', `refs/heads/${lane.baseBranch}`])).code === 0 ? `refs/heads/${lane.baseBranch}` : lane.base;
      const count = await git(lane.top, ['rev-list', '--count', `${into}..refs/heads/${lane.branch}`]);
      const n = Number(count.stdout.trim()) || 0;
      if (n > 0) losses.push(`${n} commit${n === 1 ? '' : 's'} not merged into ${lane.baseBranch}`);
    }
    if (present) losses.push(...(await worktreeLosses(lane)));
    if (losses.length > 0) {
      throw new LaneError(
        `the lane ${lane.name} has ${losses.join(' and ')}: nothing was removed. ` +
          `Merge it (tai lane merge ${lane.name}), or drop it with --force to lose that work`,
      );
    }
  }
  let saved: SavedDropOf | null = null;
  if (force) {
    saved = await saveDrop(lane, now).catch((err: unknown) => {
      throw new LaneError(`cannot save the lane ${lane.name}'s work before dropping it: ${err instanceof Error ? err.message : String(err)}; nothing was removed (make those files readable, or remove what you do not need to keep, then drop again)`);
    });
  }
  let worktree: LaneDrop['worktree'] = 'already gone';
  if (present) {
    const run = await git(lane.top, ['worktree', 'remove', ...(force ? ['--force', '--force'] : []), lane.worktree]);
    if (run.code !== 0) throw new LaneError(`cannot remove the worktree ${lane.worktree}: ${run.stderr.trim()}`);
    worktree = 'removed';
  } else {
    // A folder removed by hand leaves git's record of it behind.
    await git(lane.top, ['worktree', 'prune']);
  }
  let branch: LaneDrop['branch'] = 'already gone';
  if (hasBranch) {
    const run = await git(lane.top, ['branch', '-D', lane.branch]);
    if (run.code !== 0) throw new LaneError(`the worktree is removed but the branch ${lane.branch} is not: ${run.stderr.trim()}`);
    branch = 'deleted';
  }
  new LaneStore(db).remove(lane.repo, lane.name);
  return { worktree, branch, saved };
}

/** How many files `git worktree remove` would lose: uncommitted edits, and git-ignored files (named: they look clean). */
async function worktreeLosses(lane: StoredLane): Promise<string[]> {
  const status = await git(lane.worktree, ['status', '--porcelain', '--ignored=matching']);
  const entries = status.stdout.split('\n').filter((l) => l.length > 3);
  const ignored = entries.filter((l) => l.startsWith('!! ')).map((l) => l.slice(3));
  const edited = entries.length - ignored.length;
  const losses: string[] = [];
  if (edited > 0) losses.push(`uncommitted edits in ${edited} file${edited === 1 ? '' : 's'}`);
  if (ignored.length > 0) {
    const shown = ignored.slice(0, IGNORED_SHOWN).join(', ');
    const more = ignored.length > IGNORED_SHOWN ? ` and ${ignored.length - IGNORED_SHOWN} more` : '';
    losses.push(`${ignored.length} git-ignored file${ignored.length === 1 ? '' : 's'} or folder${ignored.length === 1 ? '' : 's'} (${shown}${more})`);
  }
  return losses;
}

/** The ignored paths a refusal names; the rest are counted. */
const IGNORED_SHOWN = 5;

/** Saves the lane's uncommitted edits aside and resets its worktree to its last commit, for a fresh agent (refused while its agent runs). */
export function restartLaneByHand(db: StateDb, lane: StoredLane, stateDir: string, now: number): LaneRestart {
  refuseWhileLive(db, lane, 'restart');
  refuseMissing(lane);
  return restartLane(db, { lane: lane.name, worktree: lane.worktree, task: lane.task, reason: { kind: 'asked' }, stateDir, now });
}
