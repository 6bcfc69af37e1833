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
