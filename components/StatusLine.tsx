/**
 * The status line: the window's last row (the layout keeps it, src/core/panel/layout.ts).
 * On the left the cockpit's name and how many agents run, wait (an outage
 * holds them), are done and have no panel; on the right the key to the help
 * (`C-] ?`), or, while the prefix waits for its key, a lit sign saying so. It
 * still counts the agents when the window is too narrow for any panel.
 */
import React from 'react';
import { prefixName } from '../src/core/input/keys.js';
import type { Palette } from '../src/core/panel/colors.js';
import { isLive } from '../src/core/panel/panel-state.js';
import { styled } from '../src/core/text/fit.js';
import type { BoardStatus } from '../store/status.js';
import { RawRows } from './RawRows.js';
import { usePalette } from './use-palette.js';

/** What the status line shows. */
export interface StatusFacts {
  /** The cockpit's name: `tai`, its pid and the main program's name. */
  readonly name: string;
  readonly status: BoardStatus;
  /** Agents on the board with no panel (no room). */
  readonly hidden: number;
  readonly prefix: string;
  /** The prefix was pressed and waits for its key. */
  readonly pending: boolean;
}

/** The counts: `1 asks you · 2 running · 1 waiting · 3 done · 1 stopped · +4 hidden` (zero counts left out but running); an agent that asks comes first. */
export function statusCounts(status: BoardStatus, hidden: number): string {
  let running = 0;
  let waiting = 0;
  let asking = 0;
  let done = 0;
  let failed = 0;
  for (const a of status.agents) {
    if (a.state === 'waiting') waiting++;
    else if (a.state === 'asking') asking++;
    else if (isLive(a.state)) running++;
    else if (a.state === 'done') done++;
    else failed++; // failed, timeout, cancelled: ended without a result
  }
  const parts = [...(asking > 0 ? [`${asking} ${asking === 1 ? 'asks' : 'ask'} you`] : []), `${running} running`];
  if (waiting > 0) parts.push(`${waiting} waiting`);
  if (done > 0) parts.push(`${done} done`);
  if (failed > 0) parts.push(`${failed} stopped`);
  if (hidden > 0) parts.push(`+${hidden} hidden`);
  return parts.join(' · ');
}

/** The status line as one SGR-coded row exactly `cols` wide; the name goes first when room is short. */
export function statusRow(facts: StatusFacts, cols: number, palette: Palette): string {
  if (cols <= 0) return '';
  const key = prefixName(facts.prefix);
  const right = facts.pending ? ` ${key} … press a key (? help) ` : ` ${key} ? help `;
  const counts = statusCounts(facts.status, facts.hidden);
  const full = ` ${facts.name} │ ${counts} `;
  const left = full.length + right.length <= cols ? full : ` ${counts} `;
  if (left.length + right.length > cols) {
    // Too narrow for both: the pending sign wins, else the counts.
    return facts.pending ? styled(right, cols, palette.pending) : styled(left, cols, palette.status);
  }
  return styled(left, cols - right.length, palette.status) + styled(right, right.length, facts.pending ? palette.pending : palette.status);
}

/** Props: what to show, the row's width. */
export interface StatusLineProps {
  readonly facts: StatusFacts;
  readonly cols: number;
}

/** The status row. */
export function StatusLine({ facts, cols }: StatusLineProps): React.JSX.Element | null {
  const palette = usePalette();
  return <RawRows rows={[statusRow(facts, cols, palette)]} cols={cols} height={1} />;
}
