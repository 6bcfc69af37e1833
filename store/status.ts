/**
 * The status API (docs/spec.md, "Status API"):
 * totals by state and one row per agent, live, lingering or recently gone.
 */
import { PANEL_STATES, type PanelState } from '../src/core/panel/panel-state.js';

/** One agent (or feed pane) as status reports it. */
export interface AgentRow {
  readonly id: number;
  readonly kind: 'agent' | 'feed';
  readonly label: string;
  readonly task: string;
  readonly state: PanelState;
  readonly startedAt: number;
  readonly lastEventAt: number;
  readonly finishedAt?: number;
  readonly elapsedMs: number;
  readonly tools: number;
  readonly tokens: number;
  readonly droppedBytes: number;
  /** Why it stopped, its summary, or empty. */
  readonly reason: string;
  /** The spawn's own silence limit (`idle_cancel`, ms); absent for the default ORCH_IDLE_KILL. */
  readonly idleCancelMs?: number;
  /** Its header's tag (a lane: `⎇ NAME · 3 files +10 −2`, `⎇ NAME · dropped`); absent without one. */
  readonly tag?: string;
}

/** Totals by state, and the rows, newest last. */
export interface BoardStatus {
  readonly totals: Readonly<Record<PanelState, number>> & { readonly total: number };
  readonly agents: readonly AgentRow[];
}

/**
 * Combines the rows of the panels the board holds with the history of those
 * already gone; a panel still held wins over its own history row.
 */
export function statusOf(current: readonly AgentRow[], history: readonly AgentRow[], held: ReadonlyMap<number, unknown>): BoardStatus {
  const rows = [...history.filter((r) => !held.has(r.id)), ...current].sort((a, b) => a.id - b.id);
  const totals = Object.fromEntries(PANEL_STATES.map((s) => [s, 0])) as Record<PanelState, number>;
  for (const r of rows) totals[r.state]++;
  return { totals: { ...totals, total: rows.length }, agents: rows };
}

/** How many agents (not feed panes) are in each state: what the status line counts. */
export type AgentCounts = ReadonlyMap<PanelState, number>;

/** The agent rows' states by id, with their counts, of one version of the history. */
interface HistoryCounts {
  readonly first: AgentRow | undefined;
  readonly last: AgentRow | undefined;
  readonly length: number;
  readonly states: ReadonlyMap<number, PanelState>;
  readonly counts: AgentCounts;
}

/**
 * The agents' counts as `statusOf` gives them, for every publish: the history's counts are remade only when its
 * rows changed (it grows at its end, is cut at its start), so a call costs the panels held, not the agents ended.
 */
export function agentCounter(history: readonly AgentRow[]): (held: Iterable<{ readonly id: number; readonly kind: string; readonly state: PanelState }>) => AgentCounts {
  let made: HistoryCounts | undefined;
  const ofHistory = (): HistoryCounts => {
    const first = history[0];
    const last = history.at(-1);
    if (made && made.first === first && made.last === last && made.length === history.length) return made;
    const states = new Map<number, PanelState>();
    const counts = new Map<PanelState, number>();
    for (const r of history) {
      if (r.kind !== 'agent') continue;
      states.set(r.id, r.state);
      counts.set(r.state, (counts.get(r.state) ?? 0) + 1);
    }
    made = { first, last, length: history.length, states, counts };
    return made;
  };
  return (held) => {
    const h = ofHistory();
    const counts = new Map(h.counts);
    for (const r of held) {
      // A panel still held wins over its own history row.
      const old = h.states.get(r.id);
      if (old !== undefined) counts.set(old, (counts.get(old) ?? 0) - 1);
      if (r.kind === 'agent') counts.set(r.state, (counts.get(r.state) ?? 0) + 1);
    }
    return counts;
  };
}
