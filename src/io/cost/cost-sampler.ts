/**
 * Samples what each live agent's process group and the cockpit itself cost,
 * every COST_SAMPLE_MS on a timer of its own (never in a render), into the
 * agent list's store, which keeps a sample only when its text changed. The
 * /proc scan runs only while the agent list is open (the one place the
 * agents' figures show; a sample at once when it opens) and a local agent
 * runs, so a cockpit at rest pays nothing for it; the cockpit's own figure
 * is Node's (process.cpuUsage, the resident set), no file read. A remote agent
 * (`--host`) is `remote`: its processes are on the host, and what runs here
 * is only ssh.
 */
import { groupCost, type Cost, type GroupSample } from '../../core/cost/group-cost.js';
import { isLive } from '../../core/panel/panel-state.js';
import type { AgentCost, AgentList } from '../../../store/agent-list.js';
import type { Board } from '../../../store/board.js';
import { isRemoteGroup, pageSize, readGroups } from './proc-groups.js';

/** How often the costs are sampled. */
export const COST_SAMPLE_MS = 2_000;

/** What to sample and where to put it. */
export interface CostSamplerOptions {
  readonly board: Board;
  readonly list: AgentList;
  /** The agent's process group, once it started (the agent service's pgidOf). */
  readonly pgidOf: (id: number) => number | undefined;
  /** Where /proc is (tests). */
  readonly root?: string;
  readonly intervalMs?: number;
  /** Wall time, for CPU over the interval. */
  readonly now?: () => number;
}

/** A running sampler. */
export interface CostSampler {
  /** Samples now (the timer calls it). */
  sample(): void;
  /** What sampling itself cost: samples taken, milliseconds spent, stat files read. */
  stats(): { readonly samples: number; readonly ms: number; readonly read: number };
  stop(): void;
}

/** Starts sampling every `intervalMs` (COST_SAMPLE_MS); the timer never keeps the process alive. */
export function startCostSampler(options: CostSamplerOptions): CostSampler {
  const { board, list, pgidOf, root = '/proc' } = options;
  const now = options.now ?? Date.now;
  const page = pageSize(root);
  let groups = new Map<number, GroupSample>();
  const remote = new Map<number, boolean>();
  let own: { at: number; usage: NodeJS.CpuUsage } | undefined;
  const spent = { samples: 0, ms: 0, read: 0 };

  const ownCost = (at: number): Cost => {
    const usage = process.cpuUsage();
    const before = own;
    own = { at, usage };
    const seconds = before === undefined ? 0 : (at - before.at) / 1000;
    const used = before === undefined ? 0 : (usage.user - before.usage.user + usage.system - before.usage.system) / 1e6;
    return { cpu: seconds > 0 ? (used / seconds) * 100 : undefined, rssBytes: process.memoryUsage.rss() };
  };

  const sample = (): void => {
    const started = performance.now();
    const at = now();
    const wanted = new Map<number, number>(); // pgid -> agent id
    for (const p of list.getState().open ? board.getState().panels : []) {
      if (p.kind !== 'agent' || !isLive(p.state)) continue;
      const pgid = pgidOf(p.id);
      if (pgid !== undefined) wanted.set(pgid, p.id);
    }
    const costs = new Map<number, AgentCost>();
    const local = new Set<number>();
    for (const [pgid, id] of wanted) {
      if (!remote.has(pgid)) remote.set(pgid, isRemoteGroup(pgid, root));
      if (remote.get(pgid) === true) costs.set(id, 'remote');
      else local.add(pgid);
    }
    const next = new Map<number, GroupSample>();
    if (local.size > 0) {
      const found = readGroups(local, root);
      spent.read += found.read;
      for (const pgid of local) {
        const procs = found.groups.get(pgid);
        if (procs === undefined) continue; // ended since the board last heard
        const { sample: s, cost } = groupCost(groups.get(pgid), procs, at, page);
        next.set(pgid, s);
        costs.set(wanted.get(pgid) ?? 0, cost);
      }
    }
    groups = next;
    for (const pgid of remote.keys()) if (!wanted.has(pgid)) remote.delete(pgid);
    list.getState().measured(costs, ownCost(at));
    spent.samples++;
    spent.ms += performance.now() - started;
  };

  const timer = setInterval(sample, options.intervalMs ?? COST_SAMPLE_MS);
  timer.unref();
  const offList = list.subscribe((now, before) => {
    if (now.open && !before.open) sample();
  });
  sample();
  return {
    sample,
    stats: () => ({ ...spent }),
    stop: () => {
      clearInterval(timer);
      offList();
    },
  };
}
