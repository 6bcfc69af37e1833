/**
 * The folder `src/io/lane-drops/`: drops that can be undone (docs/lanes.md, "Undoing a drop"). This file saves a
 * lane before `tai lane drop --force`: a commit of the worktree's whole tree (git-ignored files too) on the lane's
 * last commit under `refs/tai/drops/NAME/<time>`, which also keeps the branch's commits once it is deleted.
 */
import { existsSync } from 'node:fs';
import { dropMessage, dropRef, type DroppedLane } from '../../core/lanes/drop-record.js';
import { git, gitOk } from '../lanes/lane-git.js';
import type { StoredLane } from '../lanes/lane-store.js';
import { snapshotWorktree, taiCommitEnv } from './snapshot.js';

/** A saved drop. */
export interface SavedDropOf {
  readonly ref: string;
  /** Paths the save holds that the lane's last commit lacks or has otherwise (edits, new and ignored files, deletions). */
  readonly files: number;
}

/** Saves what the lane holds under a drop ref; null when it holds nothing (no worktree, no branch). Throws on failure: then nothing may be removed. */
export async function saveDrop(lane: StoredLane, now: number): Promise<SavedDropOf | null> {
  const branchHead = await git(lane.top, ['rev-parse', '--verify', '--quiet', `refs/heads/${lane.branch}^{commit}`]);
  let head: string;
  let tree: string;
  if (existsSync(lane.worktree)) {
    ({ head, tree } = await snapshotWorktree(lane.worktree, true));
  } else if (branchHead.code === 0) {
    head = branchHead.stdout.trim();
    tree = (await gitOk(lane.top, ['rev-parse', `${head}^{tree}`])).trim();
  } else {
    return null;
  }
  const changed = (await gitOk(lane.top, ['diff-tree', '-r', '--name-only', '-z', '--no-renames', head, tree])).split('\0').filter((f) => f !== '');
  const row: DroppedLane = {
    name: lane.name,
    branch: lane.branch,
    base: lane.base,
    baseBranch: lane.baseBranch,
    task: lane.task,
    agent: lane.agent,
    createdAt: lane.createdAt,
    head,
    files: changed.length,
    droppedAt: now,
  };
  const commit = (await gitOk(lane.top, ['commit-tree', '--no-gpg-sign', tree, '-p', head, '-m', dropMessage(row)], taiCommitEnv(now))).trim();
  let ref = dropRef(lane.name, now);
  // Two drops of one name in one millisecond: the second gets its own ref.
  for (let n = 2; (await git(lane.top, ['show-ref', '--verify', '--quiet', ref])).code === 0; n++) ref = `${dropRef(lane.name, now)}-${n}`;
  // The empty old value: create, never overwrite.
  await gitOk(lane.top, ['update-ref', '-m', `tai lane drop ${lane.name}`, ref, commit, '']);
  return { ref, files: changed.length };
}
