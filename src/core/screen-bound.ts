/**
 * The largest window the cockpit lays out for (docs/security.md, "The window's size"): screens and frames are built
 * for the window's size, so one huge size report would ask for a vast number of cells; a larger window gets the
 * cockpit in its top-left corner at this size.
 */

/** The most columns the cockpit lays out for. */
export const LAYOUT_COLS_MAX = 1000;

/** The most rows the cockpit lays out for. */
export const LAYOUT_ROWS_MAX = 300;

/** A window's size as the cockpit lays it out: whole, at least 1x1, at most LAYOUT_COLS_MAX x LAYOUT_ROWS_MAX. */
export function layoutSize(cols: number, rows: number): { cols: number; rows: number } {
  return { cols: bound(cols, LAYOUT_COLS_MAX), rows: bound(rows, LAYOUT_ROWS_MAX) };
}

function bound(n: number, max: number): number {
  return Number.isFinite(n) ? Math.min(max, Math.max(1, Math.floor(n))) : 1;
}
