/**
 * A worktree's whole state as a git tree without touching it: a copy of its index (GIT_INDEX_FILE) brought up to
 * the worktree by `git add -A -f`, then `git write-tree`. The user's index, stash and refs are never written, and
 * starting from the real index hashes only changed files. For drops (drop-save.ts) and conflict checks.
 */
import { copyFile, mkdtemp, rm, stat, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git, gitOk } from '../lanes/lane-git.js';

/** A worktree's state as git objects. */
export interface Snapshot {
  /** Its last commit. */
  readonly head: string;
  /** Its whole tree: every file as it is on disk (ignored ones too when asked). */
  readonly tree: string;
}

/** Who tai's own commits (drops, conflict checks) are made by: never the user's identity, never signed. */
export function taiCommitEnv(at: number): NodeJS.ProcessEnv {
  const date = `@${Math.floor(at / 1000)} +0000`;
  return {
    ...process.env,
    GIT_AUTHOR_NAME: 'tai',
    GIT_AUTHOR_EMAIL: 'tai@localhost',
    GIT_COMMITTER_NAME: 'tai',
    GIT_COMMITTER_EMAIL: 'tai@localhost',
    GIT_AUTHOR_DATE: date,
    GIT_COMMITTER_DATE: date,
  };
}

/** The worktree `dir`'s tree as it is on disk, with git-ignored files when `ignored`. */
export async function snapshotWorktree(dir: string, ignored: boolean): Promise<Snapshot> {
  const head = (await gitOk(dir, ['rev-parse', '--verify', 'HEAD^{commit}'])).trim();
  const index = (await gitOk(dir, ['rev-parse', '--path-format=absolute', '--git-path', 'index'])).trim();
  // Not in the gitdir: the lane's watch hears that folder.
  const tmp = await mkdtemp(join(tmpdir(), 'tai-snapshot-'));
  try {
    const tmpIndex = join(tmp, 'index');
    await copyIndex(index, tmpIndex);
    const env = { ...process.env, GIT_INDEX_FILE: tmpIndex };
    const add = await git(dir, ['add', '--all', ...(ignored ? ['--force'] : []), '--', '.'], env);
    if (add.code !== 0) throw new Error(`git add failed: ${add.stderr.trim() || `exit ${add.code}`}`);
    const tree = (await gitOk(dir, ['write-tree'], env)).trim();
    return { head, tree };
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/** A commit of `snap` (its head the parent), or the head itself when nothing differs. */
export async function snapshotCommit(dir: string, snap: Snapshot, message: string, at: number): Promise<string> {
  const headTree = (await gitOk(dir, ['rev-parse', `${snap.head}^{tree}`])).trim();
  if (headTree === snap.tree) return snap.head;
  return (await gitOk(dir, ['commit-tree', '--no-gpg-sign', snap.tree, '-p', snap.head, '-m', message], taiCommitEnv(at))).trim();
}

/**
 * Copies the index with its modification time: git trusts a file's stat only when the file is older than
 * the index ("racy git"), so a copy made now would hide an edit of the same size made just before it.
 */
async function copyIndex(from: string, to: string): Promise<void> {
  const st = await stat(from).catch(() => undefined);
  if (st === undefined) return;
  await copyFile(from, to);
  await utimes(to, st.atime, st.mtime);
}
