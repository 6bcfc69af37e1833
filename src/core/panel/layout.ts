/**
 * The window layout (docs/spec.md, "Layout" and "Supervision"; docs/architecture.md, "Layout is a function"): a pure
 * function from (columns, rows, panels, zoom) to rectangles. A panel's rectangle includes its header row; a panel with
 * no room has no rectangle but a reason (the spec's text) and is still supervised; a zoomed pane covers the window while
 * the unzoomed geometry is still computed, so every screen keeps its size. The status line takes the last row.
 */
import {
  MPLEX_VPANE_MAIN_PERCENT,
  MPLEX_VPANE_MIN_COLS,
  MPLEX_VPANE_MIN_ROWS,
  MPLEX_VPANE_MIN_WINDOW_COLS,
  ORCH_PANELS_MAX,
} from '../policy.js';

/** A rectangle of cells; `x`, `y` are the top-left cell, `cols`, `rows` its size. */
export interface Rect {
  readonly x: number;
  readonly y: number;
  readonly cols: number;
  readonly rows: number;
}

/** A pane: the main pane or a panel by id. */
export type PaneId = number | 'main';

/** A direction focus can move in, geometrically. */
export type Direction = 'left' | 'right' | 'up' | 'down';

/** What the layout is computed from. */
export interface LayoutInput {
  readonly cols: number;
  readonly rows: number;
  /** Panel ids in creation order, only those wanting a place; ids are unique. */
  readonly panels: readonly number[];
  /** The zoomed pane, if any; ignored unless it is the main pane or one of `panels` (a hidden one too). */
  readonly zoom?: PaneId;
  /** The main pane's share of the width (vpane_open's main_percent); default 55. */
  readonly mainPercent?: number;
  /** Keep the last row for the status line; default false (a host's box has none). */
  readonly statusLine?: boolean;
}

/** A shown panel and its rectangle, header row included. */
export interface PanelPlace {
  readonly id: number;
  readonly rect: Rect;
}

/** A panel that got no place, with the spec's exact reason. */
export interface HiddenPanel {
  readonly id: number;
  readonly reason: string;
}

/** The separator lines: one `│` column left of the right column, one `─` row between panels. */
export interface Separators {
  readonly vertical?: { readonly x: number; readonly y: number; readonly rows: number };
  readonly horizontal: readonly { readonly x: number; readonly y: number; readonly cols: number }[];
}

/**
 * Where everything goes. `main`, `panels` and `separators` are always the
 * unzoomed geometry (screens are sized from them); `zoomed`, when present, is
 * the one pane actually drawn, over the whole window. Use `drawn()` to paint.
 */
export interface Layout {
  readonly main: Rect;
  readonly panels: readonly PanelPlace[];
  readonly hidden: readonly HiddenPanel[];
  readonly separators: Separators;
  readonly zoomed?: { readonly id: PaneId; readonly rect: Rect };
  /** The status line's row, when the layout keeps one. */
  readonly status?: Rect;
}

/** docs/spec.md, "The vpane protocol": the window is under MPLEX_VPANE_MIN_WINDOW_COLS columns. */
export const REASON_TOO_NARROW = 'window too narrow for a feed pane';
/** docs/spec.md, "The vpane protocol": the window is too short for another pane of MPLEX_VPANE_MIN_ROWS rows. */
export const REASON_NO_SPACE = 'no space for another feed pane';
/** docs/spec.md, "The vpane protocol": past ORCH_PANELS_MAX panels. */
export const REASON_TOO_MANY = `too many feed panes (limit ${ORCH_PANELS_MAX})`;

/** A size made safe: a finite, non-negative integer (garbage counts as 0). */
function cells(n: number): number {
  return Number.isFinite(n) ? Math.max(0, Math.floor(n)) : 0;
}

/**
 * Null when `n` panels fit a `cols` x `rows` window, else why the last does not; the board asks before opening one.
 * A panel's MPLEX_VPANE_MIN_ROWS includes the separator above it: six fit in 40 rows, a seventh not (docs/spec.md, "Layout").
 */
export function fits(cols: number, rows: number, n: number): string | null {
  const count = cells(n);
  if (count === 0) return null;
  if (cells(cols) < MPLEX_VPANE_MIN_WINDOW_COLS) return REASON_TOO_NARROW;
  if (count > ORCH_PANELS_MAX) return REASON_TOO_MANY;
  if (count * MPLEX_VPANE_MIN_ROWS > cells(rows)) return REASON_NO_SPACE;
  return null;
}

/** Splits `total` rows into `n` near-equal heights, the first ones getting the remainder one each. */
export function shares(total: number, n: number): number[] {
  const count = cells(n);
  if (count === 0) return [];
  const space = cells(total);
  const base = Math.floor(space / count);
  const extra = space % count;
  return Array.from({ length: count }, (_, i) => base + (i < extra ? 1 : 0));
}

/** docs/spec.md, "Layout": percent of the width, clamped to [1, cols - 2], then squeezed so the right column keeps MPLEX_VPANE_MIN_COLS. */
function mainWidth(cols: number, percent: number): number {
  let width = Math.floor((cols * percent) / 100);
  width = Math.max(1, Math.min(width, cols - 2));
  if (cols - width - 1 < MPLEX_VPANE_MIN_COLS) width = cols - 1 - MPLEX_VPANE_MIN_COLS;
  return Math.max(1, width);
}

/** The rows the panes share in a window of `rows`: all of them, or all but the status line's. */
export function areaRows(rows: number, statusLine: boolean): number {
  const all = cells(rows);
  return statusLine && all >= 2 ? all - 1 : all;
}

/** Computes the whole layout; never throws, whatever the sizes. */
export function layout(input: LayoutInput): Layout {
  const withStatus = withStatusLine(input);
  const cols = cells(input.cols);
  const rows = areaRows(input.rows, input.statusLine ?? false);
  const percent =
    input.mainPercent !== undefined && Number.isFinite(input.mainPercent) ? input.mainPercent : MPLEX_VPANE_MAIN_PERCENT;

  // Panels are hidden from the newest; fits() is monotone in n, so the shown ones are a prefix.
  let shown = 0;
  while (shown < input.panels.length && fits(cols, rows, shown + 1) === null) shown += 1;
  const hidden = input.panels
    .slice(shown)
    .map((id, i) => ({ id, reason: fits(cols, rows, shown + i + 1) ?? REASON_NO_SPACE }));

  const window: Rect = { x: 0, y: 0, cols, rows };
  if (shown === 0) {
    return withStatus(withZoom({ main: window, panels: [], hidden, separators: { horizontal: [] } }, input.zoom, window));
  }

  const left = mainWidth(cols, percent);
  const right = { x: left + 1, cols: cols - left - 1 };
  const panels: PanelPlace[] = [];
  const horizontal: { x: number; y: number; cols: number }[] = [];
  let y = 0;
  shares(rows - (shown - 1), shown).forEach((height, i) => {
    if (i > 0) {
      horizontal.push({ x: right.x, y, cols: right.cols });
      y += 1;
    }
    panels.push({ id: input.panels[i], rect: { x: right.x, y, cols: right.cols, rows: height } });
    y += height;
  });
  return withStatus(
    withZoom(
      {
        main: { x: 0, y: 0, cols: left, rows },
        panels,
        hidden,
        separators: { vertical: { x: left, y: 0, rows }, horizontal },
      },
      input.zoom,
      window,
    ),
  );
}

/** Adds the status line's row below the area when the input keeps one. */
function withStatusLine(input: LayoutInput): (l: Layout) => Layout {
  const rows = cells(input.rows);
  if (!input.statusLine || rows < 2) return (l) => l;
  const status: Rect = { x: 0, y: rows - 1, cols: cells(input.cols), rows: 1 };
  return (l) => ({ ...l, status });
}

/**
 * Adds the zoom when it names the main pane or a panel of the input, shown or
 * hidden: zooming is how a hidden panel is seen (the agent list opens it so);
 * zooming an unknown panel is ignored.
 */
function withZoom(base: Layout, zoom: PaneId | undefined, window: Rect): Layout {
  if (zoom === undefined) return base;
  if (zoom !== 'main' && rectOf(base, zoom) === undefined && !base.hidden.some((h) => h.id === zoom)) return base;
  return { ...base, zoomed: { id: zoom, rect: window } };
}

/** The unzoomed rectangle of a pane, or undefined when it has no place. */
export function rectOf(l: Layout, id: PaneId): Rect | undefined {
  if (id === 'main') return l.main;
  return l.panels.find((p) => p.id === id)?.rect;
}

/** What to paint: only the zoomed pane over the whole window, or every shown pane and the separators. */
export function drawn(l: Layout): { panes: { id: PaneId; rect: Rect }[]; separators: Separators } {
  if (l.zoomed) return { panes: [{ id: l.zoomed.id, rect: l.zoomed.rect }], separators: { horizontal: [] } };
  return {
    panes: [{ id: 'main', rect: l.main }, ...l.panels.map((p) => ({ id: p.id, rect: p.rect }))],
    separators: l.separators,
  };
}

/** The order next/prev focus cycles through: the main pane, then the shown panels top to bottom. */
export function focusOrder(l: Layout): PaneId[] {
  return ['main', ...l.panels.map((p) => p.id)];
}

/**
 * The pane next to `from` in `direction` (unzoomed geometry): among the panes
 * whose near edge touches `from`'s far edge across at most one separator and
 * that overlap it sideways, the one nearest to `from`'s centre; null if none.
 */
export function neighbour(l: Layout, from: PaneId, direction: Direction): PaneId | null {
  const origin = rectOf(l, from);
  if (origin === undefined) return null;
  const horizontal = direction === 'left' || direction === 'right';
  // Work along an axis: `a` is the direction of travel, `b` the side-to-side one.
  const along = (r: Rect): [number, number] => (horizontal ? [r.x, r.x + r.cols] : [r.y, r.y + r.rows]);
  const across = (r: Rect): [number, number] => (horizontal ? [r.y, r.y + r.rows] : [r.x, r.x + r.cols]);
  const forward = direction === 'right' || direction === 'down';
  const [oStart, oEnd] = along(origin);
  const [bStart, bEnd] = across(origin);
  const centre = (bStart + bEnd) / 2;

  let best: PaneId | null = null;
  let bestDistance = Infinity;
  for (const id of focusOrder(l)) {
    if (id === from) continue;
    const rect = rectOf(l, id);
    if (rect === undefined) continue;
    const [start, end] = along(rect);
    const gap = forward ? start - oEnd : oStart - end;
    if (gap < 0 || gap > 1) continue;
    const [cStart, cEnd] = across(rect);
    if (Math.min(bEnd, cEnd) <= Math.max(bStart, cStart)) continue;
    const distance = Math.max(0, cStart - centre, centre - cEnd);
    if (distance < bestDistance) {
      best = id;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * The drawn pane under the cell (`x`, `y`) and where its screen starts (a
 * panel's row 0 is its header, so its screen starts a row lower); undefined
 * over a separator or past the window.
 */
export function paneAt(l: Layout, x: number, y: number): { readonly id: PaneId; readonly rect: Rect; readonly screenTop: number } | undefined {
  for (const { id, rect } of drawn(l).panes) {
    if (x >= rect.x && x < rect.x + rect.cols && y >= rect.y && y < rect.y + rect.rows) {
      return { id, rect, screenTop: id === 'main' ? rect.y : rect.y + 1 };
    }
  }
  return undefined;
}
