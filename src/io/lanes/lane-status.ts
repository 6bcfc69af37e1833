/**
 * What a lane holds now: its diff stat against its base (committed and
 * uncommitted, new files included), commits ahead of and behind the branch it
 * was made from, whether it has uncommitted edits, and its whole diff for
 * review (`tai lane diff`, the panel's `d`).
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { addStats, NO_CHANGE, parseLeftRight, parseShortstat, type AheadBehind, type DiffStat } from '../../core/lanes/git-output.js';
import { git, gitOk } from './lane-git.js';
import { laneAgentState, refuseMissing, type LaneAgent } from './lanes.js';
import type { StoredLane } from './lane-store.js';
import type { StateDb } from '../storage/state-db.js';

/** New files are counted up to this many bytes each (a stat, not a scan). */
const UNTRACKED_READ_MAX = 1 << 20;

/**
 * The worktree's tracked diff stat against the base: `git diff-index`, which prints what `git diff BASE` does but
 * never rewrites the index (`git diff` may, even with GIT_OPTIONAL_LOCKS=0), so a stat triggers no other stat.
 */
export async function trackedStat(lane: StoredLane): Promise<DiffStat> {
  const run = await git(lane.worktree, ['diff-index', '--shortstat', lane.base, '--']);
  return run.code === 0 ? parseShortstat(run.stdout) : NO_CHANGE;
}

/** The files git does not track yet in the worktree (not ignored). */
export async function untrackedFiles(lane: StoredLane): Promise<string[]> {
  const out = await gitOk(lane.worktree, ['ls-files', '--others', '--exclude-standard', '-z']);
  return out.split('\0').filter((f) => f !== '');
}

/** The whole diff stat: tracked changes against the base plus every new file's lines. */
export async function fullStat(lane: StoredLane): Promise<DiffStat> {
  let stat = await trackedStat(lane);
  for (const file of await untrackedFiles(lane)) {
    const text = await readFile(join(lane.worktree, file)).then((b) => b.subarray(0, UNTRACKED_READ_MAX).toString('utf8'), () => '');
    const lines = text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    stat = addStats(stat, { files: 1, added: lines, removed: 0 });
  }
  return stat;
}

/** One lane as `tai lane list` shows it. */
export interface LaneInfo {
  readonly lane: StoredLane;
  /** The latest agent's label and state, or null before one started. */
  readonly agent: LaneAgent | null;
  /** Commits on the lane not on its base branch, and the other way round; null when the worktree is gone. */
  readonly aheadBehind: AheadBehind | null;
  readonly stat: DiffStat | null;
  readonly uncommitted: boolean | null;
  /** The worktree folder was removed by hand. */
  readonly missing: boolean;
}

/** Everything `tai lane list` says about one lane. */
export async function laneInfo(db: StateDb, lane: StoredLane): Promise<LaneInfo> {
  const agent = laneAgentState(db, lane);
  if (!existsSync(lane.worktree)) return { lane, agent, aheadBehind: null, stat: null, uncommitted: null, missing: true };
  const counts = await git(lane.top, ['rev-list', '--left-right', '--count', `refs/heads/${lane.baseBranch}...refs/heads/${lane.branch}`]);
  const status = await git(lane.worktree, ['status', '--porcelain']);
  return {
    lane,
    agent,
    aheadBehind: counts.code === 0 ? parseLeftRight(counts.stdout) : null,
    stat: await fullStat(lane),
    uncommitted: status.code === 0 ? status.stdout.trim() !== '' : null,
    missing: false,
  };
}

/** The lane's diff against its base, committed and uncommitted, new files included; coloured when `color`. */
export async function laneDiff(lane: StoredLane, color: boolean): Promise<string> {
  refuseMissing(lane);
  const colorArg = color ? '--color=always' : '--no-color';
  let text = await gitOk(lane.worktree, ['diff', colorArg, lane.base]);
  for (const file of await untrackedFiles(lane)) {
    // --no-index exits 1 when the files differ, which a new file always does.
    const run = await git(lane.worktree, ['diff', colorArg, '--no-index', '--', '/dev/null', file]);
    text += run.stdout;
  }
  return text;
}
