/**
 * The agent list's store (prefix + w, like tmux's choose-tree; docs/cockpit.md, "The agent list (prefix + `w`)"):
 * open or not, the selected row, a note until the next key. Apart from the board, so its snapshot stays the agents'.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { ListMove } from '../src/core/input/list-keys.js';
import { formatCost, type Cost } from '../src/core/cost/group-cost.js';

/** What an agent costs as the list shows it: its group's figure, or `remote` (its processes run on a host). */
export type AgentCost = Cost | 'remote';

/** The list's state and actions. */
export interface AgentListState {
  readonly open: boolean;
  /** The selected row's agent id (kept by id, so a row arriving above it does not move the selection). */
  readonly selected: number | undefined;
  readonly note: string | undefined;
  /** What each agent's process group costs, by agent id (src/io/cost/cost-sampler.ts); absent while unknown. */
  readonly costs: ReadonlyMap<number, AgentCost>;
  /** What the cockpit's own process costs, for the status line. */
  readonly own: Cost | undefined;
  /** A new sample: kept only when what it shows differs, so an unchanged figure renders nothing. */
  measured(costs: ReadonlyMap<number, AgentCost>, own: Cost | undefined): void;
  /** Opens the list on the agent `at` (the focused panel, or the newest). */
  show(at: number | undefined): void;
  /** Moves the selection among `ids` (the rows in order). */
  move(move: Extract<ListMove, 'up' | 'down' | 'first' | 'last'>, ids: readonly number[]): void;
  fail(note: string): void;
  close(): void;
}

/** The list's store. */
export type AgentList = StoreApi<AgentListState>;

/** Creates a closed list. */
export function createAgentList(): AgentList {
  return createStore<AgentListState>()((set, get) => ({
    open: false,
    selected: undefined,
    note: undefined,
    costs: new Map(),
    own: undefined,
    measured(costs, own) {
      const s = get();
      const sameOwn = sameOwnCost(s.own, own);
      if (sameOwn && sameCosts(s.costs, costs)) return;
      set({ ...(sameOwn ? {} : { own }), ...(sameCosts(s.costs, costs) ? {} : { costs }) });
    },
    show: (at) => set({ open: true, selected: at, note: undefined }),
    move(move, ids) {
      if (ids.length === 0) return;
      const at = selectedIndex(get().selected, ids);
      const to = move === 'first' ? 0 : move === 'last' ? ids.length - 1 : move === 'up' ? Math.max(0, at - 1) : Math.min(ids.length - 1, at + 1);
      set({ selected: ids[to], note: undefined });
    },
    fail: (note) => set({ note }),
    close: () => set({ open: false, note: undefined }),
  }));
}

/** The selected row's index among `ids`: the selected agent, else the last row. */
export function selectedIndex(selected: number | undefined, ids: readonly number[]): number {
  const at = selected === undefined ? -1 : ids.indexOf(selected);
  return at >= 0 ? at : ids.length - 1;
}

/** The cockpit's own RSS is shown anew only when it moved by this share: a figure that twitched by a megabyte would redraw the row every sample. */
const OWN_RSS_STEP = 0.05;

/** Whether the status line may keep showing `shown` for `now`: the same CPU text and an RSS within OWN_RSS_STEP of it. */
function sameOwnCost(shown: Cost | undefined, now: Cost | undefined): boolean {
  if (shown === undefined || now === undefined) return shown === now;
  const cpu = (c: Cost): string => formatCost({ ...c, rssBytes: 0 });
  return cpu(shown) === cpu(now) && Math.abs(now.rssBytes - shown.rssBytes) < shown.rssBytes * OWN_RSS_STEP;
}

/** Whether two samples show the same text for every agent. */
function sameCosts(a: ReadonlyMap<number, AgentCost>, b: ReadonlyMap<number, AgentCost>): boolean {
  if (a.size !== b.size) return false;
  for (const [id, cost] of a) {
    const other = b.get(id);
    if (other === undefined || costText(cost) !== costText(other)) return false;
  }
  return true;
}

/** An agent's cost as the list writes it: `cpu - · -` for a remote one (its processes are on the host). */
export function costText(cost: AgentCost): string {
  return cost === 'remote' ? 'cpu - · -' : formatCost(cost);
}
