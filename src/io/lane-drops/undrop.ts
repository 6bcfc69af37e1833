/**
 * `tai lane undrop NAME [--as NEW]` (docs/lanes.md, "Undoing a drop"): the newest saved drop made a lane again, its
 * row first (reserving the name), then the worktree at the last commit with the saved files written over it
 * through a temporary index (bytes, modes and symlinks as saved), so the edits show as uncommitted again. The
 * drop's ref goes only once all that succeeded.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DROPS_REF, parseDropMessage, parseDropRefs, type DroppedLane, type SavedDrop } from '../../core/lanes/drop-record.js';
import { checkLaneName, laneBranch } from '../../core/lanes/lane-name.js';
import { git, gitOk } from '../lanes/lane-git.js';
import { LaneError, LANES_DIR, repoOf } from '../lanes/lanes.js';
import { LaneStore, type LaneAgentSpec, type StoredLane } from '../lanes/lane-store.js';
import type { StateDb } from '../storage/state-db.js';

/** A lane brought back. */
export interface Undropped {
  readonly lane: StoredLane;
  readonly from: string;
  /** Saved paths written back or deleted again. */
  readonly files: number;
}

/** Every saved drop of the repository at `top`, newest first. */
export async function savedDrops(top: string): Promise<SavedDrop[]> {
  return parseDropRefs(await gitOk(top, ['for-each-ref', '--format=%(refname) %(committerdate:unix)', `${DROPS_REF}/`]));
}

/** Brings back the newest saved drop of `name` in the repository of `cwd` (as `as` when given); throws LaneError with what to do. */
export async function undropLane(db: StateDb, cwd: string, name: string, as?: string): Promise<Undropped> {
  const { repo, top } = await repoOf(cwd);
  const drops = await savedDrops(top);
  const mine = drops.filter((d) => d.name === name);
  const newest = mine[0];
  if (!newest) {
    const others = [...new Set(drops.map((d) => d.name))];
    throw new LaneError(
      `nothing to undrop: no saved drop of a lane ${name} in ${top}` +
        (others.length > 0 ? ` (saved drops here: ${others.join(', ')})` : ' (only tai lane drop --force saves one; tai lane gc removes those older than a week)'),
    );
  }
  const saved = parseDropMessage(await gitOk(top, ['log', '-1', '--format=%B', newest.ref]));
  if (!saved) throw new LaneError(`${newest.ref} is not a drop tai saved: nothing was changed`);
  const target = checkLaneName(as ?? name);
  await refuseTaken(db, repo, top, target, name);
  const store = new LaneStore(db);
  const lane = rowOf(saved, repo, top, target);
  if (!store.insert(lane)) throw new LaneError(`a lane named ${target} already exists in ${top}: undrop under another name with: tai lane undrop ${name} --as OTHER`);
  const add = await git(top, ['worktree', 'add', '--quiet', '-b', lane.branch, lane.worktree, saved.head]);
  if (add.code !== 0) {
    store.remove(repo, target);
    if ((await git(top, ['show-ref', '--verify', '--quiet', `refs/heads/${lane.branch}`])).code === 0) await git(top, ['branch', '-D', lane.branch]);
    throw new LaneError(`cannot make the worktree of ${target} again: ${add.stderr.trim() || `git worktree add exited ${add.code}`}; the drop is kept (${newest.ref})`);
  }
  const files = await restoreFiles(lane.worktree, saved.head, newest.ref).catch((err: unknown) => {
    throw new LaneError(`the lane ${target} is back at its last commit but its saved files are not: ${err instanceof Error ? err.message : String(err)}; the drop is kept (${newest.ref}), and git checkout ${newest.ref} -- . in ${lane.worktree} restores them by hand`);
  });
  await gitOk(top, ['update-ref', '-d', newest.ref]);
  return { lane, from: newest.ref, files };
}

/** Refuses a name in use again (a lane, its branch or its folder made since the drop), saying what to do. */
async function refuseTaken(db: StateDb, repo: string, top: string, target: string, name: string): Promise<void> {
  const other = target === name ? 'OTHER' : 'ANOTHER';
  const instead = `undrop it under another name with: tai lane undrop ${name} --as ${other}`;
  if (new LaneStore(db).get(repo, target)) {
    throw new LaneError(`the name ${target} is taken by a lane made since the drop (tai lane list): ${instead}, or drop that lane first; nothing was changed`);
  }
  if ((await git(top, ['show-ref', '--verify', '--quiet', `refs/heads/${laneBranch(target)}`])).code === 0) {
    throw new LaneError(`the branch ${laneBranch(target)} exists again in ${top}: ${instead}, or delete that branch; nothing was changed`);
  }
  const folder = join(repo, LANES_DIR, target);
  if (existsSync(folder)) throw new LaneError(`the folder ${folder} exists: ${instead}, or remove that folder; nothing was changed`);
}

function rowOf(saved: DroppedLane, repo: string, top: string, name: string): StoredLane {
  return {
    repo,
    name,
    top,
    branch: laneBranch(name),
    worktree: join(repo, LANES_DIR, name),
    base: saved.base,
    baseBranch: saved.baseBranch,
    task: saved.task,
    agent: saved.agent as LaneAgentSpec,
    agentRun: null,
    agentId: null,
    agentPid: null,
    agentStart: null,
    createdAt: saved.createdAt,
    mergedAt: null,
  };
}

/** Writes the drop's tree over the worktree (at `head`) through a temporary index, and deletes what the lane had deleted. */
async function restoreFiles(worktree: string, head: string, ref: string): Promise<number> {
  const tmp = await mkdtemp(join(tmpdir(), 'tai-undrop-'));
  try {
    const env = { ...process.env, GIT_INDEX_FILE: join(tmp, 'index') };
    await gitOk(worktree, ['read-tree', `${ref}^{tree}`], env);
    await gitOk(worktree, ['checkout-index', '--all', '--force'], env);
    const changes = (await gitOk(worktree, ['diff-tree', '-r', '--no-renames', '--name-status', '-z', head, `${ref}^{tree}`])).split('\0');
    let files = 0;
    for (let i = 0; i + 1 < changes.length; i += 2) {
      files++;
      if (changes[i] === 'D') await unlink(join(worktree, changes[i + 1] ?? '')).catch(() => {});
    }
    return files;
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}
