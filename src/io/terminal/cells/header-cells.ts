/**
 * A panel's header row (pane-cells.ts) made again for a new second without building and parsing its SGR string:
 * the moved characters of its elapsed time are written into a copy of the last row, at the columns the last full
 * parse put them in (docs/performance.md, "Optimisations that stay").
 */
import type { CellRow } from '../sgr-cells.js';

/**
 * Per UTF-16 unit of `text`, the column of the one-unit, one-column cell that unit alone drew in `row`, else -1;
 * undefined unless all of `text` drew, unclipped, from column 0 in fewer than `avail` columns.
 */
export function columnsOf(text: string, row: CellRow, avail: number): Int16Array | undefined {
  const columns = new Int16Array(text.length).fill(-1);
  const { chars } = row;
  let i = 0;
  for (let c = 0; i < text.length; c++) {
    if (c >= avail || c >= chars.length) return undefined;
    const cell = chars[c]!;
    if (cell === '') continue; // a wide character's right half
    if (!text.startsWith(cell, i)) return undefined;
    if (cell.length === 1 && chars[c + 1] !== '') columns[i] = c;
    i += cell.length;
  }
  return columns;
}

/**
 * `row`, drawn from `was`, as `text` draws it: new characters (the styles shared) holding the units that differ, or
 * `row` itself; undefined, so that only a full parse is right, when the lengths differ or a differing unit is not
 * printable ASCII in one of `columns` (which may go on past `text`, to a note drawn after it).
 */
export function rewritten(row: CellRow, was: string, text: string, columns: Int16Array): CellRow | undefined {
  if (was.length !== text.length || columns.length < text.length) return undefined;
  let chars: string[] | undefined;
  for (let i = 0; i < text.length; i++) {
    const b = text.charCodeAt(i);
    if (b === was.charCodeAt(i)) continue;
    const c = columns[i]!;
    if (b < 0x20 || b > 0x7e || c < 0) return undefined;
    chars ??= row.chars.slice();
    chars[c] = text[i]!;
  }
  return chars ? { chars, styles: row.styles } : row;
}
