/**
 * The board's private bookkeeping for one panel (a record), and the pure
 * views the board publishes of it: the snapshot row, the status row and the
 * header text.
 */
import { headerAt, headerParts, type HeaderParts } from '../src/core/panel/header.js';
import type { Formatter } from '../src/core/panel/formatter.js';
import { isLive, type PanelState, type StopCause } from '../src/core/panel/panel-state.js';
import type { PendingOutput } from '../src/core/panel/pending.js';
import { MPLEX_VPANE_HEADER_MAX } from '../src/core/policy.js';
import type { Screen } from '../src/core/screen.js';
import type { PanelKind, PanelView, StopHook } from './board-types.js';
import type { AgentRow } from './status.js';

/** What headerOf made last: the time-free parts and what they came from, then the text of one second. */
interface HeaderMemo {
  readonly state: PanelState;
  readonly tools: number;
  readonly tokens: number;
  readonly stopping: boolean;
  readonly held: string;
  readonly tag: string;
  readonly parts: HeaderParts;
  second: number;
  text: string;
}

/** One panel as the board keeps it; mutable, never published. */
export interface PanelRecord {
  readonly id: number;
  readonly kind: PanelKind;
  readonly label: string;
  readonly task: string;
  readonly startedAt: number;
  deadline?: number;
  readonly timeoutMs?: number;
  /** The spawn's own silence limit (`idle_cancel`); undefined for ORCH_IDLE_KILL. */
  readonly idleKillMs?: number;
  /** An agent on another host: not counted in the board's cap. */
  readonly host?: string;
  state: PanelState;
  lastEventAt: number;
  /** While held for an outage: the service waited for and since when. */
  held?: { service: string; since: number; stopWaits?: boolean };
  lastTextAt: number;
  stop?: { cause: StopCause; reason: string; at: number; hardAt?: number };
  finishedAt?: number;
  closeAt?: number;
  summary?: string;
  tools: number;
  tokens: number;
  /** Feed panes: the owner's header. */
  header: string;
  /** Agent panels: the owner's tag in the header (a lane and its diff stat). */
  tag?: string;
  /** Closed by the user: off the board, still supervised until it finishes. */
  closed: boolean;
  screen?: Screen;
  formatter?: Formatter;
  readonly pending: PendingOutput;
  cols: number;
  rows: number;
  soft?: StopHook;
  hard?: StopHook;
  softCalled: boolean;
  hardCalled: boolean;
  /** The last header made (headerOf) and what it was made from: publish asks 40 times a second while streaming. */
  headerMemo?: HeaderMemo;
  /** The last view published (viewOf): an unchanged record keeps its object, so selectors see no change. */
  viewMemo?: PanelView;
}

/** The snapshot row of a record; `hiddenReason` set when it has no rectangle. */
export function viewOf(rec: PanelRecord, now: number, hiddenReason: string | undefined): PanelView {
  const header = headerOf(rec, now);
  const shown = hiddenReason === undefined;
  const closing = rec.closeAt !== undefined;
  const v = rec.viewMemo;
  if (
    v &&
    v.header === header &&
    v.state === rec.state &&
    v.shown === shown &&
    v.reason === hiddenReason &&
    v.closing === closing &&
    v.cols === rec.cols &&
    v.rows === rec.rows
  ) {
    return v;
  }
  // One literal, no spread of an optional field: a silent cockpit makes one per panel each second.
  const view: { -readonly [K in keyof PanelView]: PanelView[K] } = {
    id: rec.id,
    kind: rec.kind,
    label: rec.label,
    task: rec.task,
    state: rec.state,
    header,
    shown,
    closing,
    cols: rec.cols,
    rows: rec.rows,
  };
  if (hiddenReason !== undefined) view.reason = hiddenReason;
  rec.viewMemo = view;
  return view;
}

/** The status row of a record at `now`. */
export function rowOf(rec: PanelRecord, now: number): AgentRow {
  const end = rec.finishedAt ?? now;
  return {
    id: rec.id,
    kind: rec.kind,
    label: rec.label,
    task: rec.task,
    state: rec.state,
    startedAt: rec.startedAt,
    lastEventAt: rec.lastEventAt,
    elapsedMs: end - rec.startedAt,
    tools: rec.tools,
    tokens: rec.tokens,
    droppedBytes: rec.pending.dropped + (rec.formatter?.skipped ?? 0),
    reason: rec.stop?.reason ?? rec.summary ?? '',
    ...(rec.finishedAt === undefined ? {} : { finishedAt: rec.finishedAt }),
    ...(rec.idleKillMs === undefined ? {} : { idleCancelMs: rec.idleKillMs }),
    ...(rec.tag === undefined ? {} : { tag: rec.tag }),
  };
}

/** The header text of a record at `now` (a feed pane's is its owner's). */
export function headerOf(rec: PanelRecord, now: number): string {
  if (rec.kind === 'feed') return rec.header;
  const elapsedMs = (rec.finishedAt ?? now) - rec.startedAt;
  const stopping = rec.stop !== undefined && isLive(rec.state);
  const held = rec.held?.service ?? '';
  const tag = rec.tag ?? '';
  let m = rec.headerMemo;
  // Only the elapsed time changes from one second to the next: the rest of the text is made once per change.
  if (!m || m.state !== rec.state || m.tools !== rec.tools || m.tokens !== rec.tokens || m.stopping !== stopping || m.held !== held || m.tag !== tag) {
    const parts = headerParts({
      label: rec.label,
      state: rec.state,
      tools: rec.tools,
      tokens: rec.tokens,
      ...(rec.held ? { waitingFor: rec.held.service } : {}),
      ...(rec.tag ? { tag: rec.tag } : {}),
    });
    m = { state: rec.state, tools: rec.tools, tokens: rec.tokens, stopping, held, tag, parts, second: NaN, text: '' };
    rec.headerMemo = m;
  }
  // The header shows whole seconds at most: the same second makes the same text.
  const second = Math.floor(elapsedMs / 1000);
  if (m.second !== second) {
    const text = headerAt(m.parts, elapsedMs);
    m.second = second;
    m.text = stopping ? clipHeader(`${text} · stopping`) : text;
  }
  return m.text;
}

/** Clips to `max` characters with an ellipsis. */
export function clip(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : chars.slice(0, max - 1).join('') + '…';
}

/** Clips a header to MPLEX_VPANE_HEADER_MAX. */
export function clipHeader(text: string): string {
  return clip(text, MPLEX_VPANE_HEADER_MAX);
}
