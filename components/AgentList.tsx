/**
 * The agent list (prefix + w, like tmux's choose-tree) above the status line (docs/cockpit.md, "The agent list"): every
 * agent from the board's status, live, hidden or finished, with its state, label, elapsed time and, while it runs, its
 * process group's cost (store/agent-list.ts); the selected row inverted and kept in view; Enter opens it zoomed.
 */
import React from 'react';
import { useStore } from 'zustand';
import { formatElapsed, STATE_ICON } from '../src/core/panel/header.js';
import type { Palette } from '../src/core/panel/colors.js';
import { sanitizeLine } from '../src/core/text/sanitize.js';
import { fit, styled } from '../src/core/text/fit.js';
import { costText, selectedIndex, type AgentCost, type AgentList as AgentListStore } from '../store/agent-list.js';
import type { AgentRow } from '../store/status.js';
import { RawRows } from './RawRows.js';
import { usePalette } from './use-palette.js';

/** The title row: what the keys do. */
export const LIST_TITLE = ' tai agents · ↑↓ / j k move · Enter opens it zoomed · q / Esc closes';

/** Where each agent is: its panel shown, hidden, or gone (and whether its transcript can be reopened). */
export type RowPlace = 'shown' | 'hidden' | 'kept' | 'gone';

/** One agent's row text: icon, id, label, state, elapsed, its cost while it runs, its lane (the header's tag), where it is. */
export function agentLine(row: AgentRow, place: RowPlace, cost?: AgentCost): string {
  const where = place === 'hidden' ? ' · hidden (no room)' : place === 'gone' ? ` · its transcript: tai logs ${row.id}` : '';
  const spent = cost === undefined ? '' : ` · ${costText(cost)}`;
  const lane = row.tag === undefined ? '' : ` · ${sanitizeLine(row.tag)}`;
  return `  ${STATE_ICON[row.state]} #${row.id}  ${sanitizeLine(row.label)} · ${row.state} · ${formatElapsed(row.elapsedMs)}${spent}${lane}${where}`;
}

/** The list's rows, exactly `height` of them, `cols` wide; the selected row inverted and kept in view. */
export function listRows(rows: readonly AgentRow[], places: ReadonlyMap<number, RowPlace>, selected: number | undefined, note: string | undefined, cols: number, height: number, palette: Palette, costs: ReadonlyMap<number, AgentCost> = new Map()): string[] {
  const out = [styled(LIST_TITLE, cols, palette.status)];
  const room = Math.max(0, height - 2);
  const ids = rows.map((r) => r.id);
  const at = selectedIndex(selected, ids);
  const start = Math.max(0, Math.min(at - room + 1, rows.length - room));
  if (rows.length === 0) out.push(fit('  no agents yet: start one with the prefix and @ (a mention), or tai spawn', cols));
  for (const [i, row] of rows.slice(start, start + room).entries()) {
    const line = agentLine(row, places.get(row.id) ?? 'gone', costs.get(row.id));
    out.push(start + i === at ? styled(line, cols, '7') : fit(line, cols));
  }
  while (out.length < height - 1) out.push(fit('', cols));
  out.push(note ? styled(` ${note}`, cols, palette.error) : fit('', cols));
  return out.slice(0, height);
}

/** Props: the list's store, the agents, where each is, the size. */
export interface AgentListProps {
  readonly list: AgentListStore;
  readonly rows: readonly AgentRow[];
  readonly places: ReadonlyMap<number, RowPlace>;
  readonly cols: number;
  readonly height: number;
}

/** The list over the window. */
export function AgentList({ list, rows, places, cols, height }: AgentListProps): React.JSX.Element | null {
  const selected = useStore(list, (s) => s.selected);
  const note = useStore(list, (s) => s.note);
  const costs = useStore(list, (s) => s.costs);
  const palette = usePalette();
  if (height <= 0) return null;
  return <RawRows rows={listRows(rows, places, selected, note, cols, height, palette, costs)} cols={cols} height={height} />;
}
