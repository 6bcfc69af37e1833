/**
 * What git prints about a lane, read into data: `diff --shortstat`,
 * `rev-list --left-right --count`, `status --porcelain -z`, `merge-tree
 * --write-tree --name-only --no-messages` and `worktree list --porcelain`.
 * Pure, so every shape git can print is tested without a repository.
 */

/** Files changed and lines added and removed, as `git diff --shortstat` counts them. */
export interface DiffStat {
  readonly files: number;
  readonly added: number;
  readonly removed: number;
}

/** No change at all. */
export const NO_CHANGE: DiffStat = { files: 0, added: 0, removed: 0 };

/** ` 3 files changed, 10 insertions(+), 2 deletions(-)` -> {3, 10, 2}; empty output is no change. */
export function parseShortstat(output: string): DiffStat {
  const count = (re: RegExp): number => Number(re.exec(output)?.[1] ?? 0);
  return { files: count(/(\d+) files? changed/), added: count(/(\d+) insertions?\(\+\)/), removed: count(/(\d+) deletions?\(-\)/) };
}

/** Two stats added up (the tracked diff and the untracked files). */
export function addStats(a: DiffStat, b: DiffStat): DiffStat {
  return { files: a.files + b.files, added: a.added + b.added, removed: a.removed + b.removed };
}

/** Commits on each side: `behind` on the base branch only, `ahead` on the lane only. */
export interface AheadBehind {
  readonly ahead: number;
  readonly behind: number;
}

/** `git rev-list --left-right --count BASE...LANE` prints `behind\tahead`. */
export function parseLeftRight(output: string): AheadBehind {
  const [left, right] = output.trim().split(/\s+/);
  return { behind: Number(left ?? 0) || 0, ahead: Number(right ?? 0) || 0 };
}

/** The paths of `git status --porcelain -z` (both sides of a rename), in order. */
export function parsePorcelainZ(output: string): string[] {
  const parts = output.split('\0');
  const paths: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const entry = parts[i] ?? '';
    if (entry.length < 4) continue;
    paths.push(entry.slice(3));
    // A rename or copy carries its source as the next field.
    if (entry[0] === 'R' || entry[0] === 'C') {
      const from = parts[++i];
      if (from) paths.push(from);
    }
  }
  return paths;
}

/** What `git merge-tree --write-tree --name-only --no-messages` found. */
export type MergeTree =
  | { readonly kind: 'clean'; readonly tree: string }
  | { readonly kind: 'conflict'; readonly files: readonly string[] };

/** Reads merge-tree's output: exit 0 a clean tree, exit 1 the tree then the conflicted files. */
export function parseMergeTree(output: string, exitCode: number): MergeTree {
  const lines = output.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  const tree = lines[0] ?? '';
  if (exitCode === 0) return { kind: 'clean', tree };
  return { kind: 'conflict', files: [...new Set(lines.slice(1))] };
}

/** One entry of `git worktree list --porcelain`. */
export interface WorktreeEntry {
  readonly path: string;
  /** `refs/heads/...`, or null when detached or bare. */
  readonly branch: string | null;
}

/** The worktrees git knows, with the branch each has checked out. */
export function parseWorktreeList(output: string): WorktreeEntry[] {
  const entries: WorktreeEntry[] = [];
  for (const block of output.split(/\n\n+/)) {
    const lines = block.split('\n');
    const path = lines.find((l) => l.startsWith('worktree '))?.slice('worktree '.length);
    if (!path) continue;
    const branch = lines.find((l) => l.startsWith('branch '))?.slice('branch '.length) ?? null;
    entries.push({ path, branch });
  }
  return entries;
}

/** `git version 2.39.5` -> whether `git merge-tree --write-tree` is there (git 2.38 or newer). */
export function hasWriteTreeMerge(versionOutput: string): boolean {
  const m = /(\d+)\.(\d+)/.exec(versionOutput);
  if (!m) return false;
  const [major, minor] = [Number(m[1]), Number(m[2])];
  return major > 2 || (major === 2 && minor >= 38);
}
