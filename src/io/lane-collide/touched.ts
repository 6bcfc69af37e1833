/**
 * What one lane changed against its base, for collisions (docs/lanes.md, "Collisions"): its paths (`git diff-index
 * --name-only`, which never rewrites the index, so a look is no change in the watched gitdir; plus new files), and,
 * for shared paths, its lines (`-p -U0`: a path whose stat alone changed has no hunk).
 */
import { existsSync } from 'node:fs';
import { parseHunks, WHOLE_FILE, type LineSpan } from '../../core/lanes/collisions.js';
import { git } from '../lanes/lane-git.js';
import type { StoredLane } from '../lanes/lane-store.js';

/** Paths of the lane's worktree that differ from its base, or are new; empty when the worktree is gone. */
export async function touchedFiles(lane: StoredLane): Promise<string[]> {
  if (!existsSync(lane.worktree)) return [];
  const [tracked, fresh] = await Promise.all([
    git(lane.worktree, ['diff-index', '--name-only', '-z', '--no-renames', lane.base, '--']),
    git(lane.worktree, ['ls-files', '--others', '--exclude-standard', '-z']),
  ]);
  const paths = [...split(tracked.code === 0 ? tracked.stdout : ''), ...split(fresh.code === 0 ? fresh.stdout : '')];
  return [...new Set(paths)].sort();
}

/** The base lines each of `files` changed in the lane; a new file covers all of it, a file with no real change is absent. */
export async function touchedLines(lane: StoredLane, files: readonly string[]): Promise<Map<string, LineSpan[]>> {
  if (files.length === 0 || !existsSync(lane.worktree)) return new Map();
  const [run, fresh] = await Promise.all([
    git(lane.worktree, ['diff-index', '-p', '-U0', '--no-color', '--no-renames', '--no-ext-diff', '--no-textconv', lane.base, '--', ...files]),
    git(lane.worktree, ['ls-files', '--others', '--exclude-standard', '-z', '--', ...files]),
  ]);
  const spans = parseHunks(run.code === 0 ? run.stdout : '');
  for (const f of split(fresh.stdout)) spans.set(f, [WHOLE_FILE]);
  return spans;
}

function split(out: string): string[] {
  return out.split('\0').filter((f) => f !== '');
}
