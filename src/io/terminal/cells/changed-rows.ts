/**
 * Which rows and columns of a frame the output stage (term-output.ts) looks
 * at: a row is skipped, without allocating, when it is made of the same row
 * objects at the same places as last frame.
 */
import type { CellRow } from '../sgr-cells.js';

/** A pane's cells and where they go. */
export interface Overlay {
  readonly x: number;
  readonly y: number;
  /** The width of the rectangle; wider rows are cut (a screen may lag a resize by a frame). */
  readonly cols: number;
  readonly rows: readonly CellRow[];
}

/** Columns `from` to `to` (exclusive) of a row. */
export interface Span {
  from: number;
  to: number;
}

/**
 * The rows to look at, in order, when this frame's overlays are the last frame's objects at the same places but for
 * some rows (a second's new headers): those and the `patched` ones; null for every row.
 */
export function changedRows(overlays: readonly Overlay[], last: readonly Overlay[], patched: Iterable<number>, height: number): number[] | null {
  if (overlays.length !== last.length) return null;
  const rows: number[] = [...patched];
  for (let i = 0; i < overlays.length; i++) {
    const o = overlays[i]!;
    const p = last[i]!;
    if (o === p) continue;
    if (o.x !== p.x || o.y !== p.y || o.cols !== p.cols || o.rows.length !== p.rows.length) return null;
    for (let k = 0; k < o.rows.length; k++) {
      const y = o.y + k;
      if (o.rows[k] !== p.rows[k] && y >= 0 && y < height) rows.push(y);
    }
  }
  return rows.sort((a, b) => a - b).filter((y, i) => i === 0 || rows[i - 1] !== y);
}

/**
 * The columns of row `y` whose inputs changed since `last` (inputsOf), written into `span`: false when none did, the
 * span of the changed overlays' rows when only those did (a streaming panel beside a still main pane), else all `cols`.
 */
export function changedSpan(span: Span, last: readonly unknown[] | undefined, chrome: CellRow, y: number, overlays: readonly Overlay[], cols: number): boolean {
  span.from = 0;
  span.to = cols;
  if (!last || last[0] !== chrome) return true;
  let from = cols;
  let to = 0;
  let i = 1;
  for (const o of overlays) {
    const src = rowAt(o, y);
    if (!src) continue;
    if (i + 2 >= last.length || last[i + 1] !== o.x || last[i + 2] !== o.cols) return true;
    if (last[i] !== src) {
      from = Math.min(from, o.x);
      to = Math.max(to, Math.min(cols, o.x + o.cols));
    }
    i += 3;
  }
  if (i !== last.length) return true;
  span.from = from;
  span.to = to;
  return to > from;
}

/**
 * The rows that make up row `y`: its chrome row, then each covering overlay's
 * row and place; written into `reuse` (last frame's, of this row) when it has
 * the length, as a streaming panel's rows have every frame.
 */
export function inputsOf(chrome: CellRow, y: number, overlays: readonly Overlay[], reuse: unknown[] | undefined): unknown[] {
  let length = 1;
  for (const o of overlays) if (rowAt(o, y)) length += 3;
  const refs = reuse !== undefined && reuse.length === length ? reuse : new Array<unknown>(length);
  refs[0] = chrome;
  let i = 1;
  for (const o of overlays) {
    const src = rowAt(o, y);
    if (!src) continue;
    refs[i++] = src;
    refs[i++] = o.x;
    refs[i++] = o.cols;
  }
  return refs;
}

/** The overlay's row at screen row `y`, if it covers it (checked first: a negative index is a slow property lookup). */
export function rowAt(o: Overlay, y: number): CellRow | undefined {
  const i = y - o.y;
  return i >= 0 && i < o.rows.length ? o.rows[i] : undefined;
}
