/**
 * Whether lanes will conflict when merged (docs/lanes.md, "Collisions", "Merge order"): each lane as it is now
 * (uncommitted work included, via src/io/lane-drops/snapshot.ts) merged with another in git's object store, which
 * changes no checkout and no ref. With a git older than 2.38 it guesses from the lines both changed, and says so.
 */
import { existsSync } from 'node:fs';
import type { LaneTouch } from '../../core/lanes/collisions.js';
import { hasWriteTreeMerge, parseMergeTree } from '../../core/lanes/git-output.js';
import { git } from '../lanes/lane-git.js';
import type { StoredLane } from '../lanes/lane-store.js';
import { snapshotCommit, snapshotWorktree } from '../lane-drops/snapshot.js';
import { collisionsAmong } from './collide.js';
import { touchedFiles } from './touched.js';

/** Two sides that conflict, and in which files. */
export interface Conflict {
  readonly a: string;
  readonly b: string;
  readonly files: readonly string[];
}

/** The conflicts among lanes, and with their base branches. */
export interface LaneConflicts {
  readonly pairs: readonly Conflict[];
  /** Lanes that conflict with their base branch as it is now (b is the branch). */
  readonly withBase: readonly Conflict[];
  /** Null when git merged for real; else why the conflicts are a guess. */
  readonly guessed: string | null;
}

/** Why merge-tree cannot be used here, or null when it can. */
export async function noWriteTreeMerge(cwd: string): Promise<string | null> {
  const v = await git(cwd, ['version']);
  return hasWriteTreeMerge(v.stdout) ? null : `${v.stdout.trim() || 'this git'} has no git merge-tree --write-tree (git 2.38): conflicts are guessed from the lines both lanes changed`;
}

/** The lanes that still hold work to merge: not merged, worktree on disk. */
export function liveLanes(lanes: readonly StoredLane[]): StoredLane[] {
  return lanes.filter((l) => l.mergedAt === null && existsSync(l.worktree));
}

/** The lane as a commit: its branch with its uncommitted work and new files on top (ignored files left out). */
export async function laneTip(lane: StoredLane, now: number): Promise<string> {
  const snap = await snapshotWorktree(lane.worktree, false);
  return snapshotCommit(lane.worktree, snap, `tai: the lane ${lane.name} as it is now`, now);
}

/** The files `a` and `b` (commits) conflict in when merged; empty when they merge clean. */
export async function mergeConflictFiles(cwd: string, a: string, b: string): Promise<string[]> {
  const run = await git(cwd, ['merge-tree', '--write-tree', '--name-only', '--no-messages', a, b]);
  if (run.code > 1) throw new Error(`git merge-tree --write-tree failed: ${run.stderr.trim()}`);
  const tree = parseMergeTree(run.stdout, run.code);
  return tree.kind === 'conflict' ? [...tree.files] : [];
}

/** Every pair of `lanes` (one repository) that will conflict, and each lane that already conflicts with its base branch. */
export async function conflictsAmong(top: string, lanes: readonly StoredLane[], now: number): Promise<LaneConflicts> {
  const guessed = await noWriteTreeMerge(top);
  if (guessed !== null) return { pairs: await guessConflicts(lanes), withBase: [], guessed };
  const tips = await Promise.all(lanes.map((l) => laneTip(l, now)));
  const pairs: Conflict[] = [];
  const withBase: Conflict[] = [];
  for (let i = 0; i < lanes.length; i++) {
    const a = lanes[i];
    const tipA = tips[i];
    if (!a || !tipA) continue;
    const base = await git(top, ['rev-parse', '--verify', '--quiet', `refs/heads/${a.baseBranch}`]);
    if (base.code === 0) {
      const files = await mergeConflictFiles(top, base.stdout.trim(), tipA);
      if (files.length > 0) withBase.push({ a: a.name, b: a.baseBranch, files });
    }
    for (let j = i + 1; j < lanes.length; j++) {
      const b = lanes[j];
      const tipB = tips[j];
      if (!b || !tipB) continue;
      const files = await mergeConflictFiles(top, tipA, tipB);
      if (files.length > 0) pairs.push({ a: a.name, b: b.name, files });
    }
  }
  return { pairs, withBase, guessed: null };
}

/** The lanes that will conflict with `head` (the branch just merged into), each with the files. */
export async function conflictsWith(top: string, head: string, lanes: readonly StoredLane[], now: number): Promise<{ conflicts: Conflict[]; guessed: string | null }> {
  const guessed = await noWriteTreeMerge(top);
  if (guessed !== null) return { conflicts: [], guessed };
  const conflicts: Conflict[] = [];
  for (const lane of lanes) {
    const files = await mergeConflictFiles(top, head, await laneTip(lane, now));
    if (files.length > 0) conflicts.push({ a: lane.name, b: head, files });
  }
  return { conflicts, guessed: null };
}

/** Without merge-tree: two lanes conflict when they changed the same lines of a file. */
async function guessConflicts(lanes: readonly StoredLane[]): Promise<Conflict[]> {
  const touches: LaneTouch[] = await Promise.all(lanes.map(async (l) => ({ name: l.name, files: await touchedFiles(l) })));
  const found = await collisionsAmong(lanes, touches);
  const pairs: Conflict[] = [];
  for (const [name, list] of found) for (const c of list) if (name < c.other && c.sameLines.length > 0) pairs.push({ a: name, b: c.other, files: c.sameLines });
  return pairs;
}
