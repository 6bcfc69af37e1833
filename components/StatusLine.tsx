/**
 * The status line, the window's last row (docs/cockpit.md, "The status line"): the cockpit's name, the zoomed pane, the
 * agents' counts by state and the cockpit's own cost (dropped first when short of room); on the right the help's key,
 * or a lit sign while the prefix waits. It still counts the agents when no panel fits.
 */
import React from 'react';
import { prefixName } from '../src/core/input/keys.js';
import type { Palette } from '../src/core/panel/colors.js';
import { isLive } from '../src/core/panel/panel-state.js';
import { styled } from '../src/core/text/fit.js';
import { formatCost } from '../src/core/cost/group-cost.js';
import type { BoardState } from '../store/board.js';
import type { AgentList } from '../store/agent-list.js';
import type { PrefixSign } from '../store/prefix-sign.js';
import type { AgentCounts } from '../store/status.js';
import { RawRows } from './RawRows.js';
import { usePalette } from './use-palette.js';

/** What the status line shows. */
export interface StatusFacts {
  /** The cockpit's name: `tai`, its pid and the main program's name. */
  readonly name: string;
  /** The agents in each state (the board's `agentCounts`). */
  readonly counts: AgentCounts;
  /** Agents on the board with no panel (no room). */
  readonly hidden: number;
  readonly prefix: string;
  /** The prefix was pressed and waits for its key. */
  readonly pending: boolean;
  /** A question waiting for one key (closing a running agent's panel), lit in place of the help key. */
  readonly ask?: string;
  /** A key's refusal, shown until the next key, in place of the help key. */
  readonly message?: string;
  /** The zoomed pane's name (`main pane`, `#3`), shown with how to un-zoom (tmux's Z flag). */
  readonly zoomed?: string;
  /** What the cockpit's own process costs (`cpu 2% · 84 MB`). */
  readonly cost?: string;
}

/**
 * The agents' counts, each state in the word its header and the agent list use: `1 asks you · 2 running ·
 * 1 waiting · 3 done · 1 failed · 1 timeout · 1 cancelled · +4 hidden` (zero counts left out but running; queued
 * and idle count as running). Feed panes and read-only views (a lane's diff) are not agents and are not counted.
 */
export function statusCounts(counts: AgentCounts, hidden: number): string {
  const count = new Map<string, number>();
  for (const [state, n] of counts) {
    const word = state === 'waiting' || state === 'asking' || !isLive(state) ? state : 'running';
    count.set(word, (count.get(word) ?? 0) + n);
  }
  const asking = count.get('asking') ?? 0;
  const parts = [...(asking > 0 ? [`${asking} ${asking === 1 ? 'asks' : 'ask'} you`] : []), `${count.get('running') ?? 0} running`];
  for (const word of ['waiting', 'done', 'failed', 'timeout', 'cancelled']) {
    const n = count.get(word) ?? 0;
    if (n > 0) parts.push(`${n} ${word}`);
  }
  if (hidden > 0) parts.push(`+${hidden} hidden`);
  return parts.join(' · ');
}

/** The status line as one SGR-coded row exactly `cols` wide; the name goes first when room is short. */
export function statusRow(facts: StatusFacts, cols: number, palette: Palette): string {
  if (cols <= 0) return '';
  const key = prefixName(facts.prefix);
  const note = facts.ask ?? facts.message;
  const right = note !== undefined ? ` ${note} ` : facts.pending ? ` ${key} … press a key (? help) ` : ` ${key} ? help `;
  const lit = facts.ask !== undefined || facts.pending ? palette.pending : facts.message !== undefined ? palette.error : palette.status;
  const counts = `${facts.zoomed === undefined ? '' : `zoomed: ${facts.zoomed} (${key} z) · `}${statusCounts(facts.counts, facts.hidden)}`;
  const costly = ` ${facts.name} │ ${counts}${facts.cost === undefined ? '' : ` │ tai ${facts.cost}`} `;
  const full = ` ${facts.name} │ ${counts} `;
  const left = costly.length + right.length <= cols ? costly : full.length + right.length <= cols ? full : ` ${counts} `;
  if (left.length + right.length > cols) {
    // Too narrow for both: a question, a refusal or the pending sign wins, else the counts.
    return note !== undefined || facts.pending ? styled(right, cols, lit) : styled(left, cols, palette.status);
  }
  return styled(left, cols - right.length, palette.status) + styled(right, right.length, lit);
}

/** What the status line is made from: the board's snapshot, the agent list's and the prefix sign's stores. */
export interface StatusSources {
  readonly state: BoardState;
  readonly list: AgentList;
  readonly sign: PrefixSign;
  readonly name: string;
  readonly prefix: string;
  /** The agents in each state (the board's `agentCounts`). */
  readonly counts: AgentCounts;
}

/** The status line's facts, read from its stores at the time of the call (the Cockpit's render, or the output stage's frame). */
export function statusFacts({ state, list, sign, name, prefix, counts }: StatusSources): StatusFacts {
  const { pending, ask, message } = sign.getState();
  const own = list.getState().own;
  const zoomed = state.layout.zoomed?.id;
  return {
    name,
    counts,
    hidden: state.layout.hidden.length,
    prefix,
    pending,
    ask,
    message,
    ...(zoomed === undefined ? {} : { zoomed: zoomed === 'main' ? 'main pane' : `#${zoomed}` }),
    ...(own === undefined ? {} : { cost: formatCost(own) }),
  };
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
