/**
 * Samples what each live agent's process group and the cockpit itself cost, at most every COST_SAMPLE_MS and never
 * in a render, into the agent list's store. The /proc scan runs only while the list is open and a local agent runs,
 * so a cockpit at rest pays nothing; the cockpit's own figure is Node's, taken in the turn of a frame drawn anyway
 * (docs/cockpit.md, "What each agent costs"). A remote agent (`--host`) is `remote`: here runs only its ssh.
 */
import { groupCost, type Cost, type GroupSample } from '../../core/cost/group-cost.js';
import { isLive } from '../../core/panel/panel-state.js';
import type { AgentCost, AgentList } from '../../../store/agent-list.js';
import type { Board } from '../../../store/board.js';
import { isRemoteGroup, pageSize, readGroups } from './proc-groups.js';

/** How often the costs are sampled. */
export const COST_SAMPLE_MS = 2_000;

/** The longest gap between two pokes' samples while the figure shows the same text (at rest: `cpu <1%`, the same MB). */
export const COST_REST_MS = 4 * COST_SAMPLE_MS;

/** A poke this close before a sample's due time samples: the board's second comes a hair before it. */
const EARLY_MS = 250;

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
  /** The cockpit's own CPU time and resident bytes (tests); Node's process.cpuUsage and RSS by default. */
  readonly own?: { readonly cpuUsage: () => NodeJS.CpuUsage; readonly rss: () => number };
}

/** A running sampler. */
export interface CostSampler {
  /** Samples now (the timers call it). */
  sample(): void;
  /**
   * Something was drawn (a frame): a sample in this turn when one is due,
   * else one when it falls due, unless the next poke takes it first.
   */
  poke(): void;
  /** What sampling itself cost: samples taken, milliseconds spent, stat files read. */
  stats(): { readonly samples: number; readonly ms: number; readonly read: number };
  stop(): void;
}

/**
 * Starts sampling: the cockpit's own figure at most every `intervalMs`, in the turn of a poke, and once more an
 * interval after the last (a cockpit at rest shows its rest, then wakes for nothing); every agent's while the list
 * is open. The timers never keep the process alive.
 */
export function startCostSampler(options: CostSamplerOptions): CostSampler {
  const { board, list, pgidOf, root = '/proc', own: ownRead = { cpuUsage: () => process.cpuUsage(), rss: () => process.memoryUsage.rss() } } = options;
  const now = options.now ?? Date.now;
  const page = pageSize(root);
  let groups = new Map<number, GroupSample>();
  const remote = new Map<number, boolean>();
  let own: { at: number; usage: NodeJS.CpuUsage } | undefined;
  const spent = { samples: 0, ms: 0, read: 0 };

  const ownCost = (at: number): Cost => {
    const usage = ownRead.cpuUsage();
    const before = own;
    own = { at, usage };
    const seconds = before === undefined ? 0 : (at - before.at) / 1000;
    const used = before === undefined ? 0 : (usage.user - before.usage.user + usage.system - before.usage.system) / 1e6;
    return { cpu: seconds > 0 ? (used / seconds) * 100 : undefined, rssBytes: ownRead.rss() };
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

  const when = sampleWhen(sample, { board, list, interval: options.intervalMs ?? COST_SAMPLE_MS, now });
  return { sample: when.sampleNow, poke: when.poke, stats: () => ({ ...spent }), stop: when.stop };
}

/** What decides when to sample. */
interface When {
  readonly board: Board;
  readonly list: AgentList;
  readonly interval: number;
  readonly now: () => number;
}

/**
 * When `sample` runs: at the start, at each due poke, once an interval after the last poke while no agent runs,
 * every interval while the list is open. A sample that left the figure as it was doubles the gap, to COST_REST_MS.
 */
function sampleWhen(sample: () => void, { board, list, interval, now }: When): { sampleNow(): void; poke(): void; stop(): void } {
  const anyAgentLive = (): boolean => board.getState().panels.some((p) => p.kind === 'agent' && isLive(p.state));
  let last = -Infinity;
  let listTimer: NodeJS.Timeout | undefined;
  let trailing: NodeJS.Timeout | undefined;
  let stopped = false;
  let gap = interval;
  const sampleNow = (): void => {
    clearTimeout(trailing);
    trailing = undefined;
    last = now();
    const shown = list.getState().own;
    sample();
    // The list keeps the figure it shows while the text stays the same (store/agent-list.ts, `measured`).
    gap = list.getState().own === shown ? Math.min(2 * gap, COST_REST_MS) : interval;
  };
  // The last figure before a rest: a sample an interval after the last, unless a poke takes it first (a
  // poke falls due EARLY_MS before the timer). Not while an agent runs: its header's second draws a frame
  // each second, and a timer cleared still wakes the loop once at its old time (Node's timers).
  const trail = (): void => {
    if (stopped || trailing !== undefined || anyAgentLive()) return;
    trailing = setTimeout(sampleNow, Math.max(0, last + interval + EARLY_MS - now()));
    trailing.unref();
  };
  const poke = (): void => {
    if (stopped) return;
    if (now() - last >= gap - EARLY_MS) sampleNow();
    trail();
  };
  // The agents' figures show only in the open list: sampled on a timer of their own while it is open.
  const offList = list.subscribe((state, before) => {
    if (state.open === before.open) return;
    clearInterval(listTimer);
    listTimer = undefined;
    if (!state.open) return;
    sampleNow();
    listTimer = setInterval(sampleNow, interval);
    listTimer.unref();
  });
  sampleNow();
  trail();
  return {
    sampleNow,
    poke,
    stop: () => {
      stopped = true;
      clearInterval(listTimer);
      clearTimeout(trailing);
      offList();
    },
  };
}
