/**
 * Lanes on another host (docs/remote.md, "Lanes on a host"): the worktree in the host's repository and `tai lane
 * diff|merge|drop` of it, as git command lines through the host's shared connection, every word quoted. The row is
 * the local one with `host` set, its paths the host's.
 */
import { checkLaneName, laneNameOf, uniqueLaneName } from '../../core/lanes/lane-name.js';
import { shCommand } from '../../core/remote/sh-quote.js';
import { LaneError, LANES_DIR, newLane } from '../lanes/lanes.js';
import { LaneStore, type LaneAgentSpec, type StoredLane } from '../lanes/lane-store.js';
import type { CommandOf } from '../../core/protocol/commands.js';
import { defaultLabel } from '../../core/agents/agent-spawn.js';
import { openStateDb, stateDir, STATE_DB_FILE, type StateDb } from '../storage/state-db.js';
import { join } from 'node:path';
import { hostCwd } from './remote-agent.js';
import { placeOf } from './ssh-master.js';
import { runArgv } from './ssh-argv.js';
import { lastLine, runSsh, type SshRun } from './ssh-run.js';

/** git run on `host` in `dir`; ssh's own failure (255) is a LaneError naming the host. */
async function hostGit(host: string, dir: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<SshRun> {
  const run = await runSsh(runArgv(placeOf(host, env), shCommand(['git', '-C', dir, ...args])), 60_000);
  if (run.code === 255 || run.code === -1) throw new LaneError(`cannot reach ${host} for the lane: ${lastLine(run.stderr) || `ssh exited ${run.code}`}; see what it lacks with: tai hosts check ${host}`);
  return run;
}

async function hostGitOk(host: string, dir: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<string> {
  const run = await hostGit(host, dir, args, env);
  if (run.code !== 0) throw new LaneError(`git ${args[0] ?? ''} on ${host} in ${dir} failed: ${lastLine(run.stderr) || `exit ${run.code}`}`);
  return run.stdout;
}

/** What making a lane on a host needs. */
export interface MakeHostLane {
  readonly host: string;
  /** A folder of the host's repository (--cwd). */
  readonly cwd: string;
  readonly name?: string;
  readonly task: string;
  readonly agent: LaneAgentSpec;
  readonly now: number;
  readonly env: NodeJS.ProcessEnv;
}

/** Makes a lane in the host's repository: a worktree on a new branch tai/NAME from its HEAD; refuses with a LaneError, leaving nothing behind. */
export async function makeHostLane(db: StateDb, ask: MakeHostLane): Promise<StoredLane> {
  const { host, env } = ask;
  const where = await hostGit(host, hostCwd(ask.cwd) || '.', ['rev-parse', '--path-format=absolute', '--git-common-dir', '--show-toplevel'], env);
  const [common, top] = where.stdout.split('\n');
  if (where.code !== 0 || !common || !top) throw new LaneError(`lanes need a git repository: ${ask.cwd} on ${host} is not inside one (${lastLine(where.stderr)}); give --cwd a repository there`);
  const base = (await hostGitOk(host, top, ['rev-parse', '--verify', 'HEAD^{commit}'], env)).trim();
  const symbolic = await hostGit(host, top, ['symbolic-ref', '--quiet', '--short', 'HEAD'], env);
  if (symbolic.code !== 0) throw new LaneError(`HEAD at ${top} on ${host} is detached: a lane merges back into the branch it was made from, so check out a branch there first`);
  const store = new LaneStore(db);
  const repo = `${host}:${common}`;
  const name = ask.name ? checkLaneName(ask.name) : uniqueLaneName(laneNameOf(ask.agent.label), (n) => store.get(repo, n) !== undefined);
  const lane = newLane({ repo, name, top, worktree: `${common}/${LANES_DIR}/${name}`, base, baseBranch: symbolic.stdout.trim(), task: ask.task, agent: ask.agent, createdAt: ask.now, host });
  if (!store.insert(lane)) throw new LaneError(`a lane named ${name} already exists in ${top} on ${host} (tai lane list); give another name or drop it first`);
  const add = await hostGit(host, top, ['worktree', 'add', '--quiet', '-b', lane.branch, lane.worktree, base], env).catch((err: unknown) => {
    store.remove(repo, name);
    throw err;
  });
  if (add.code !== 0) {
    store.remove(repo, name);
    throw new LaneError(`cannot make the lane ${name} on ${host}: ${lastLine(add.stderr) || `git worktree add exited ${add.code}`}`);
  }
  return lane;
}

/** The lane's changes against its base on the host: committed and uncommitted, new files too. */
export async function hostLaneDiff(lane: StoredLane, env: NodeJS.ProcessEnv): Promise<string> {
  const host = lane.host ?? '';
  let text = await hostGitOk(host, lane.worktree, ['diff', '--no-color', lane.base], env);
  const untracked = await hostGitOk(host, lane.worktree, ['ls-files', '-z', '--others', '--exclude-standard'], env);
  for (const file of untracked.split('\0').filter(Boolean)) {
    text += (await hostGit(host, lane.worktree, ['diff', '--no-color', '--no-index', '--', '/dev/null', file], env)).stdout;
  }
  return text;
}

/** How a merge on a host went. */
export interface HostMerge {
  /** The commit made of the lane's uncommitted edits, if any. */
  readonly committed?: string;
  readonly head: string;
}

/** Commits the lane's edits and merges its branch into the base branch checked out in the host's main checkout. */
export async function hostLaneMerge(db: StateDb, lane: StoredLane, now: number, env: NodeJS.ProcessEnv): Promise<HostMerge> {
  const host = lane.host ?? '';
  const checkedOut = (await hostGit(host, lane.top, ['symbolic-ref', '--quiet', '--short', 'HEAD'], env)).stdout.trim();
  if (checkedOut !== lane.baseBranch) throw new LaneError(`the main checkout ${lane.top} on ${host} has ${checkedOut || 'a detached HEAD'} checked out, not ${lane.baseBranch}: check out ${lane.baseBranch} there first`);
  let committed: string | undefined;
  if ((await hostGitOk(host, lane.worktree, ['status', '--porcelain'], env)).trim() !== '') {
    await hostGitOk(host, lane.worktree, ['add', '-A'], env);
    await hostGitOk(host, lane.worktree, ['commit', '--quiet', '-m', lane.task || lane.name], env);
    committed = (await hostGitOk(host, lane.worktree, ['rev-parse', 'HEAD'], env)).trim();
  }
  await hostGitOk(host, lane.top, ['merge', '--quiet', '--no-edit', lane.branch], env);
  const head = (await hostGitOk(host, lane.top, ['rev-parse', 'HEAD'], env)).trim();
  new LaneStore(db).setMerged(lane.repo, lane.name, now);
  return { ...(committed === undefined ? {} : { committed }), head };
}

/** Removes the lane's worktree and branch on the host, then its row; unmerged work needs `force`. */
export async function hostLaneDrop(db: StateDb, lane: StoredLane, force: boolean, env: NodeJS.ProcessEnv): Promise<void> {
  const host = lane.host ?? '';
  if (!force && lane.mergedAt === null) {
    const ahead = (await hostGitOk(host, lane.top, ['rev-list', '--count', `${lane.baseBranch}..${lane.branch}`], env)).trim();
    const dirty = (await hostGit(host, lane.worktree, ['status', '--porcelain'], env)).stdout.trim();
    if (ahead !== '0' || dirty !== '') throw new LaneError(`the lane ${lane.name} on ${host} has work not merged into ${lane.baseBranch}: merge it (tai lane merge ${lane.name}) or drop it with --force`);
  }
  const removed = await hostGit(host, lane.top, ['worktree', 'remove', '--force', lane.worktree], env);
  if (removed.code !== 0 && !/is not a working tree/.test(removed.stderr)) throw new LaneError(`cannot remove the worktree ${lane.worktree} on ${host}: ${lastLine(removed.stderr)}`);
  await hostGit(host, lane.top, ['branch', '-D', lane.branch], env);
  new LaneStore(db).remove(lane.repo, lane.name);
}

/**
 * A spawn with a host and a lane (`tai spawn --host NAME --lane L`): the lane made on the host from the repository
 * of the spawn's `cwd` there, and the spawn turned into one in the lane's worktree.
 */
export async function hostLaneSpawn(request: CommandOf<'spawn'>, now: number, env: NodeJS.ProcessEnv): Promise<{ request: CommandOf<'spawn'>; lane: StoredLane }> {
  const { lane: name, ...rest } = request;
  const label = request.label ?? defaultLabel(request.kind, request.argv);
  const db = openStateDb(join(stateDir(env), STATE_DB_FILE));
  try {
    const lane = await makeHostLane(db, {
      host: request.host ?? '',
      cwd: request.cwd ?? '',
      ...(name ? { name } : {}),
      task: request.prompt ?? request.argv.join(' '),
      agent: { kind: request.kind, argv: request.argv, label, ...(request.prompt === undefined ? {} : { prompt: request.prompt }) },
      now,
      env,
    });
    return { request: { ...rest, cwd: lane.worktree, label: `${label} [${lane.name}]` }, lane };
  } finally {
    db.close();
  }
}
