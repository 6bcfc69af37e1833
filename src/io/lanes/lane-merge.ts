/**
 * `tai lane merge NAME` (docs/lanes.md, "Merging never leaves a checkout mid-merge"): the lane's edits committed,
 * its branch merged without touching any checkout (`git merge-tree --write-tree`), and only then the target moved,
 * so a conflict leaves every checkout untouched. Merges into one branch take turns under a lock the kernel frees
 * when its holder dies (merge-lock.ts).
 */
import { parseMergeTree, parsePorcelainZ, parseWorktreeList } from '../../core/lanes/git-output.js';
import { git, gitOk } from './lane-git.js';
import { LaneError, refuseMissing, refuseWhileLive } from './lanes.js';
import { takeMergeLock, type MergeLockWait } from './merge-lock.js';
import { LaneStore, type StoredLane } from './lane-store.js';
import type { StateDb } from '../storage/state-db.js';

/** How a merge ended. */
export interface LaneMerge {
  readonly kind: 'fast-forward' | 'merge commit' | 'nothing to merge';
  /** The target branch's new head. */
  readonly head: string;
  readonly into: string;
  /** The commit made of uncommitted edits first, if any. */
  readonly committed: string | null;
}

/** Merges the lane into the branch it was made from; throws LaneError on a conflict or a refusal, with nothing changed but the lane's own commit. */
export async function mergeLane(db: StateDb, lane: StoredLane, now: number, wait: MergeLockWait = {}): Promise<LaneMerge> {
  refuseWhileLive(db, lane, 'merge');
  refuseMissing(lane);
  const release = await takeMergeLock(lane.repo, lane.baseBranch, wait);
  try {
    // Under the lock, the lane's agent is asked about again: one may have started in it while this merge waited.
    refuseWhileLive(db, new LaneStore(db).get(lane.repo, lane.name) ?? lane, 'merge');
    const committed = await commitEdits(lane);
    const laneHead = (await gitOk(lane.top, ['rev-parse', `refs/heads/${lane.branch}`])).trim();
    const target = await git(lane.top, ['rev-parse', '--verify', '--quiet', `refs/heads/${lane.baseBranch}`]);
    if (target.code !== 0) throw new LaneError(`the branch ${lane.baseBranch} that the lane ${lane.name} was made from is gone: nothing to merge into`);
    const old = target.stdout.trim();
    if ((await git(lane.top, ['merge-base', '--is-ancestor', laneHead, old])).code === 0) {
      new LaneStore(db).setMerged(lane.repo, lane.name, now);
      return { kind: 'nothing to merge', head: old, into: lane.baseBranch, committed };
    }
    let head = laneHead;
    let kind: LaneMerge['kind'] = 'fast-forward';
    if ((await git(lane.top, ['merge-base', '--is-ancestor', old, laneHead])).code !== 0) {
      const run = await git(lane.top, ['merge-tree', '--write-tree', '--name-only', '--no-messages', old, laneHead]);
      if (run.code > 1) throw new LaneError(`cannot merge the lane ${lane.name}: git merge-tree --write-tree failed (it needs git 2.38 or newer): ${run.stderr.trim()}`);
      const tree = parseMergeTree(run.stdout, run.code);
      if (tree.kind === 'conflict') {
        throw new LaneError(
          `the lane ${lane.name} conflicts with ${lane.baseBranch} in ${tree.files.length} file${tree.files.length === 1 ? '' : 's'}: ${tree.files.join(', ')}; ` +
            `nothing was merged and the main checkout is untouched. Resolve it in the lane (cd ${lane.worktree} && git merge ${lane.baseBranch}), then merge again`,
        );
      }
      const message = `Merge lane ${lane.name} into ${lane.baseBranch}\n\n${lane.task || lane.name}\n`;
      head = (await gitOk(lane.top, ['commit-tree', tree.tree, '-p', old, '-p', laneHead, '-m', message])).trim();
      kind = 'merge commit';
    }
    await moveBranch(lane, old, head);
    new LaneStore(db).setMerged(lane.repo, lane.name, now);
    return { kind, head, into: lane.baseBranch, committed };
  } finally {
    await release();
  }
}

/** Commits the worktree's uncommitted edits (new files too) with the agent's task as the message; returns the commit, or null when clean. */
async function commitEdits(lane: StoredLane): Promise<string | null> {
  const status = await gitOk(lane.worktree, ['status', '--porcelain']);
  if (status.trim() === '') return null;
  await gitOk(lane.worktree, ['add', '--all']);
  const commit = await git(lane.worktree, ['commit', '--quiet', '--no-verify', '-m', lane.task.trim() || `lane ${lane.name}`]);
  if (commit.code !== 0) throw new LaneError(`cannot commit the lane ${lane.name}'s edits: ${commit.stderr.trim() || commit.stdout.trim()}`);
  return (await gitOk(lane.worktree, ['rev-parse', 'HEAD'])).trim();
}

/** Moves the target branch from `old` to `head` (a descendant): in the checkout that has it, or the ref alone. */
async function moveBranch(lane: StoredLane, old: string, head: string): Promise<void> {
  const ref = `refs/heads/${lane.baseBranch}`;
  const holder = parseWorktreeList(await gitOk(lane.top, ['worktree', 'list', '--porcelain'])).find((w) => w.branch === ref);
  if (!holder) {
    await gitOk(lane.top, ['update-ref', '-m', `tai lane merge ${lane.name}`, ref, head, old]);
    return;
  }
  const touched = new Set((await gitOk(lane.top, ['diff', '--name-only', '-z', old, head])).split('\0').filter((f) => f !== ''));
  const dirty = parsePorcelainZ(await gitOk(holder.path, ['status', '--porcelain', '-z'])).filter((f) => touched.has(f));
  if (dirty.length > 0) {
    throw new LaneError(
      `the checkout ${holder.path} has uncommitted changes to ${dirty.length === 1 ? 'a file' : 'files'} the merge touches: ${dirty.join(', ')}; ` +
        `commit or stash them, then merge again (the lane ${lane.name} is committed and unchanged)`,
    );
  }
  const ff = await git(holder.path, ['merge', '--ff-only', '--quiet', head]);
  if (ff.code !== 0) throw new LaneError(`cannot move ${lane.baseBranch} in ${holder.path}: ${ff.stderr.trim() || ff.stdout.trim()}`);
}
