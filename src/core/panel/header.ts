/**
 * A panel's header line (docs/spec.md, "Panel state machine"):
 * ` <icon> <label> · <state> · <elapsed> · <n> tools · <tokens> tok`.
 * The renderer draws it on row 0 of the pane in the colour of the state.
 */
import { MPLEX_VPANE_HEADER_MAX, ORCH_LABEL_MAX } from '../policy.js';
import type { PanelState } from './panel-state.js';
import { sanitizeLine } from '../text/sanitize.js';
import { clip } from '../text/wrap.js';

/** What the header shows about one panel. */
export interface HeaderInfo {
  readonly label: string;
  readonly state: PanelState;
  readonly elapsedMs: number;
  readonly tools: number;
  readonly tokens: number;
  /** What a `waiting` agent waits for; the header says `network` when absent. */
  readonly waitingFor?: string;
  /** The owner's tag after the elapsed time (a lane: `⎇ NAME · 3 files +10 −2`). */
  readonly tag?: string;
}

/** The colour names a header can take; the renderer maps each to SGR. */
export type HeaderColor = 'blue' | 'orange' | 'green' | 'red' | 'grey' | 'magenta';

/** The icon in front of the label, per state (queued, waiting and asking are ours; the spec has no icon for them). */
export const STATE_ICON: Readonly<Record<PanelState, string>> = {
  queued: '…',
  running: '●',
  idle: '◌',
  waiting: '⌁',
  asking: '?',
  done: '✓',
  failed: '✗',
  timeout: '⏱',
  cancelled: '⊘',
};

/** The header colour per state (docs/spec.md, "Panel state machine"; queued grey, waiting orange and asking magenta are ours). */
export const STATE_COLOR: Readonly<Record<PanelState, HeaderColor>> = {
  queued: 'grey',
  running: 'blue',
  idle: 'orange',
  waiting: 'orange',
  asking: 'magenta',
  done: 'green',
  failed: 'red',
  timeout: 'orange',
  cancelled: 'grey',
};

/** The header colour of a state. */
export function stateColor(state: PanelState): HeaderColor {
  return STATE_COLOR[state];
}

/** Elapsed time as `Ns` under a minute, `MmSSs` under an hour, `HhMMm` after. */
export function formatElapsed(ms: number): string {
  const total = Number.isFinite(ms) && ms > 0 ? Math.floor(ms / 1000) : 0;
  if (total < 60) return `${total}s`;
  if (total < 3600) return `${Math.floor(total / 60)}m${pad2(total % 60)}s`;
  return `${Math.floor(total / 3600)}h${pad2(Math.floor(total / 60) % 60)}m`;
}

/**
 * A token count abbreviated to at most four characters: `950`, `1.5k`, `12k`,
 * `1.2M`. Digits are cut, not rounded, so the header never shows more than
 * was used (and 999,999 never becomes `1000k`).
 */
export function formatTokens(n: number): string {
  const t = Number.isFinite(n) && n > 0 ? Math.floor(n) : 0;
  if (t < 1_000) return `${t}`;
  if (t < 10_000) return `${oneDecimal(t / 1_000)}k`;
  if (t < 1_000_000) return `${Math.floor(t / 1_000)}k`;
  if (t < 10_000_000) return `${oneDecimal(t / 1_000_000)}M`;
  return `${Math.floor(t / 1_000_000)}M`;
}

/** The header text of a panel, at most MPLEX_VPANE_HEADER_MAX characters. */
export function headerText(h: HeaderInfo): string {
  return headerAt(headerParts(h), h.elapsedMs);
}

/** A header's text around its elapsed time, which alone changes from one second to the next. */
export interface HeaderParts {
  /** ` <icon> <label> · <state> · ` */
  readonly head: string;
  /** ` · <tag> · <n> tools · <tokens> tok`, each part only when it has something to say. */
  readonly tail: string;
}

/** The parts of a header that do not depend on time (made once per change of state or counters, not every second). */
export function headerParts(h: Omit<HeaderInfo, 'elapsedMs'>): HeaderParts {
  const label = clip(sanitizeLine(h.label), Number.POSITIVE_INFINITY, ORCH_LABEL_MAX);
  const state =
    h.state === 'waiting' ? `waiting for ${sanitizeLine(h.waitingFor ?? '') || 'network'}` : h.state === 'asking' ? 'waiting for you' : h.state;
  let tail = '';
  if (h.tag) tail += ` · ${sanitizeLine(h.tag)}`;
  if (h.tools > 0) tail += ` · ${h.tools} ${h.tools === 1 ? 'tool' : 'tools'}`;
  if (h.tokens > 0) tail += ` · ${formatTokens(h.tokens)} tok`;
  return { head: ` ${STATE_ICON[h.state]} ${label} · ${state} · `, tail };
}

/** The header text of `parts` after `elapsedMs`, at most MPLEX_VPANE_HEADER_MAX characters. */
export function headerAt(parts: HeaderParts, elapsedMs: number): string {
  return clip(parts.head + formatElapsed(elapsedMs) + parts.tail, Number.POSITIVE_INFINITY, MPLEX_VPANE_HEADER_MAX);
}

function pad2(n: number): string {
  return n < 10 ? `0${n}` : `${n}`;
}

/** One decimal, cut not rounded, without a trailing `.0`. */
function oneDecimal(x: number): string {
  const tenths = Math.floor(x * 10 + 1e-9);
  return tenths % 10 === 0 ? `${tenths / 10}` : `${Math.floor(tenths / 10)}.${tenths % 10}`;
}
