/**
 * The folder `src/io/lanes/`: lanes on disk, their rows, git, state, merge, drop and panel (docs/lanes.md). This
 * file makes and finds a lane: one `git worktree add -b tai/NAME` inside git's own folder, so nothing appears among
 * the repository's files and each clone keeps its lanes. The row is written first (it reserves the name) and
 * removed again if the worktree fails, so nothing is left half-made.
 */
import { existsSync, realpathSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { checkLaneName, laneBranch, laneNameOf, uniqueLaneName } from '../../core/lanes/lane-name.js';
import { RequestError } from '../../core/errors.js';
import { isLive } from '../../core/panel/panel-state.js';
import { AgentsStore } from '../storage/agents-store.js';
import { sameProcessAlive, startedNear } from '../process-identity.js';
import { git, gitOk } from './lane-git.js';
import { LaneStore, type LaneAgentSpec, type StoredLane } from './lane-store.js';
import type { StateDb } from '../storage/state-db.js';

/** Lanes live in this folder of the repository's common git folder. */
export const LANES_DIR = 'tai-lanes';

/** A lane request that cannot be carried out; the message says why and what to do. */
export class LaneError extends RequestError {}

/** The repository a folder belongs to. */
export interface RepoOf {
  /** The common git folder, absolute and real. */
  readonly repo: string;
  /** The checkout's top folder. */
  readonly top: string;
}

/** The repository of `cwd`; throws LaneError outside one. */
export async function repoOf(cwd: string): Promise<RepoOf> {
  if (!existsSync(cwd)) throw new LaneError(`lanes need a git repository: ${cwd} does not exist`);
  const run = await git(cwd, ['rev-parse', '--path-format=absolute', '--git-common-dir', '--show-toplevel']);
  const [common, top] = run.stdout.split('\n');
  if (run.code !== 0 || !common || !top) {
    throw new LaneError(`lanes need a git repository: ${cwd} is not inside one (run git init, or give --cwd a repository)`);
  }
  return { repo: realpathSync(isAbsolute(common) ? common : resolve(cwd, common)), top: realpathSync(top) };
}

/** What making a lane needs. */
export interface MakeLane {
  /** A folder of the repository (where tai spawn was run, or its --cwd). */
  readonly cwd: string;
  /** The name asked for; omitted, one is made from the label. */
  readonly name?: string;
  readonly task: string;
  readonly agent: LaneAgentSpec;
  readonly now: number;
}

/** A lane just made, and what its maker should be told. */
export interface MadeLane {
  readonly lane: StoredLane;
  /** Said once: the main checkout had uncommitted changes the lane does not start with. */
  readonly notes: readonly string[];
}

/** Makes a lane: a worktree on a new branch `tai/NAME` from the current HEAD; refuses with a LaneError, leaving nothing behind. */
export async function makeLane(db: StateDb, ask: MakeLane): Promise<MadeLane> {
  const store = new LaneStore(db);
  const { repo, top } = await repoOf(ask.cwd);
  const head = await git(top, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
  if (head.code !== 0) throw new LaneError(`the repository at ${top} has no commits yet: a lane starts from HEAD, so commit something first`);
  const base = head.stdout.trim();
  const symbolic = await git(top, ['symbolic-ref', '--quiet', '--short', 'HEAD']);
  if (symbolic.code !== 0) {
    throw new LaneError(`HEAD at ${top} is detached (${base.slice(0, 7)}): a lane merges back into the branch it was made from, so check out a branch first`);
  }
  const baseBranch = symbolic.stdout.trim();
  const branchExists = async (name: string): Promise<boolean> =>
    (await git(top, ['show-ref', '--verify', '--quiet', `refs/heads/${laneBranch(name)}`])).code === 0;
  const folderOf = (name: string): string => join(repo, LANES_DIR, name);
  let name: string;
  if (ask.name !== undefined && ask.name !== '') {
    name = checkLaneName(ask.name);
    if (store.get(repo, name)) throw new LaneError(`a lane named ${name} already exists in ${top} (tai lane list); give another name or drop it first`);
    if (await branchExists(name)) throw new LaneError(`the branch ${laneBranch(name)} already exists in ${top}: give the lane another name, or delete the branch`);
    if (existsSync(folderOf(name))) throw new LaneError(`the folder ${folderOf(name)} already exists: give the lane another name, or remove the folder`);
  } else {
    const taken = new Set<string>(store.list(repo).map((l) => l.name));
    const base0 = laneNameOf(ask.agent.label);
    // Branches and folders are checked one candidate at a time: few exist.
    name = uniqueLaneName(base0, (n) => taken.has(n));
    while ((await branchExists(name)) || existsSync(folderOf(name))) {
      taken.add(name);
      name = uniqueLaneName(base0, (n) => taken.has(n));
    }
  }
  const lane = newLane({ repo, name, top, worktree: folderOf(name), base, baseBranch, task: ask.task, agent: ask.agent, createdAt: ask.now });
  if (!store.insert(lane)) throw new LaneError(`a lane named ${name} already exists in ${top} (tai lane list); give another name or drop it first`);
  const add = await git(top, ['worktree', 'add', '--quiet', '-b', lane.branch, lane.worktree, base]);
  if (add.code !== 0) {
    store.remove(repo, name);
    // `worktree add` may have made the branch before it failed.
    if (await branchExists(name)) await git(top, ['branch', '-D', lane.branch]);
    throw new LaneError(`cannot make the lane ${name}: ${add.stderr.trim() || `git worktree add exited ${add.code}`}`);
  }
  const dirty = await gitOk(top, ['status', '--porcelain', '--untracked-files=no']);
  const notes =
    dirty.trim() === ''
      ? []
      : [`the main checkout ${top} has uncommitted changes: the lane ${name} starts from HEAD (${base.slice(0, 7)} on ${baseBranch}) without them`];
  return { lane, notes };
}

/** A new lane's row: its branch from its name, no agent recorded yet, not merged. */
export function newLane(made: Pick<StoredLane, 'repo' | 'name' | 'top' | 'worktree' | 'base' | 'baseBranch' | 'task' | 'agent' | 'createdAt'> & { readonly host?: string }): StoredLane {
  return { ...made, branch: laneBranch(made.name), agentRun: null, agentId: null, agentPid: null, agentStart: null, mergedAt: null };
}

/**
 * The lane named `name`: in `cwd`'s repository when it is in one, else the machine's only lane of that name;
 * throws LaneError when there is none or several.
 */
export async function findLane(db: StateDb, name: string, cwd: string): Promise<StoredLane> {
  const store = new LaneStore(db);
  const here = await repoOf(cwd).catch(() => undefined);
  if (here) {
    const lane = store.get(here.repo, name);
    if (lane) return lane;
  }
  const all = store.list().filter((l) => l.name === name);
  if (all.length === 1 && all[0]) return all[0];
  if (all.length > 1) throw new LaneError(`${all.length} repositories have a lane named ${name}: run the command inside the one you mean (${all.map((l) => l.top).join(', ')})`);
  throw new LaneError(`no lane named ${name}${here ? ` in ${here.top}` : ''}: tai lane list shows the lanes`);
}

/** The lane's latest agent as `tai lane` sees it: its label, its state, and whether it really runs. */
export interface LaneAgent {
  readonly label: string;
  readonly state: string;
  readonly live: boolean;
  /** The agent's pid, once its reaper reported it. */
  readonly pid: number | null;
}

/**
 * The state of the lane's latest agent (null before one). It runs while its process does (src/io/process-identity.ts:
 * a recycled pid is another program), or, before that is known or while held, while its row is live and its
 * supervisor runs; a live row of a gone supervisor is cancelled (its reaper stopped the agent).
 */
export function laneAgentState(db: StateDb, lane: StoredLane): LaneAgent | null {
  if (lane.agentRun === null || lane.agentId === null) return null;
  const row = new AgentsStore(db).get(lane.agentRun, lane.agentId);
  const agentRuns = lane.agentPid !== null && sameProcessAlive({ pid: lane.agentPid, start: lane.agentStart });
  const [pid, startedAt] = lane.agentRun.split('-').map(Number);
  const supervised = row !== undefined && isLive(row.state) && startedNear(pid ?? 0, startedAt ?? Number.NaN);
  if (!row) return agentRuns ? { label: lane.agent.label, state: 'running', live: true, pid: lane.agentPid } : null;
  const live = agentRuns || supervised;
  return { label: row.label, state: isLive(row.state) && !live ? 'cancelled' : row.state, live, pid: lane.agentPid };
}

/** Throws LaneError while the lane's agent runs: nothing changes a worktree under a live agent. */
export function refuseWhileLive(db: StateDb, lane: StoredLane, what: string): void {
  const agent = laneAgentState(db, lane);
  if (!agent?.live) return;
  const pid = agent.pid === null ? '' : `, pid ${agent.pid}`;
  throw new LaneError(
    `cannot ${what} the lane ${lane.name} while its agent #${lane.agentId ?? '?'} (${agent.label}${pid}) is ${agent.state}: ` +
      `wait for it to end, or stop it with: tai cancel ${lane.agentId ?? '?'}`,
  );
}

/** Throws LaneError when the lane's worktree folder is gone (removed by hand). */
export function refuseMissing(lane: StoredLane): void {
  if (!existsSync(lane.worktree)) {
    throw new LaneError(`the worktree of the lane ${lane.name} (${lane.worktree}) is gone (removed by hand?): its branch ${lane.branch} is kept; tai lane drop ${lane.name} forgets the lane`);
  }
}
