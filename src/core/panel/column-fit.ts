/**
 * The agent column on its own (docs/embedding.md, "A host Ink app"): the board always lays out a main pane and the
 * column beside it, so a host showing only the column sizes the board's window so the column is exactly its box.
 * Pure: the layout's rules are inverted, never copied.
 */
import { layout } from './layout.js';
import { MPLEX_VPANE_MIN_COLS } from '../policy.js';

/** The narrowest column the layout gives panels (MPLEX_VPANE_MIN_COLS). */
export const COLUMN_MIN_COLS = MPLEX_VPANE_MIN_COLS;

/** The smallest window width whose agent column is `cols` wide (a narrower column is widened to COLUMN_MIN_COLS). */
export function windowForColumn(cols: number, mainPercent?: number): number {
  const want = Math.max(COLUMN_MIN_COLS, Math.floor(Number.isFinite(cols) ? cols : 0));
  // The column grows by at most one cell per window cell, so a short scan from the lower bound finds it.
  for (let window = want + 2; window < want * 4 + 64; window++) {
    if (columnCols(window, mainPercent) >= want) return window;
  }
  return want * 4 + 64;
}

/** The width of the agent column in a window `cols` wide (0 when no panel fits). */
export function columnCols(cols: number, mainPercent?: number): number {
  const l = layout({ cols, rows: 1_000, panels: [1], ...(mainPercent === undefined ? {} : { mainPercent }) });
  return l.panels[0]?.rect.cols ?? 0;
}

/** The left edge of the column in the board's window: where a host's box starts. */
export function columnX(l: { readonly panels: readonly { readonly rect: { readonly x: number } }[]; readonly separators: { readonly vertical?: { readonly x: number } } }): number {
  return l.panels[0]?.rect.x ?? (l.separators.vertical ? l.separators.vertical.x + 1 : 0);
}

/** What fitColumn needs of a board (structural, so the core does not import the store). */
export interface Resizable {
  getState(): { readonly cols: number; readonly rows: number; resize(cols: number, rows: number): void };
}

/** Sizes `board` so its agent column is `cols` x `rows`; does nothing when it already is. */
export function fitColumn(board: Resizable, cols: number, rows: number): void {
  const window = windowForColumn(cols);
  const height = Math.max(1, Math.floor(rows));
  const s = board.getState();
  if (s.cols !== window || s.rows !== height) s.resize(window, height);
}
