/**
 * An `@xterm/headless` buffer as plain rows: one SGR-coded string per visible
 * row, exactly `cols` cells wide, so that React and Ink never see the
 * terminal's objects (the approach of Gemini CLI's serializer). Colours keep
 * their form (16 colours, 256-colour palette, truecolor); a wide character
 * takes two cells and its right half (width 0) is skipped. The output stage
 * takes the same rows as cells (screenCells), without the string round trip.
 */
import type xterm from '@xterm/headless';
import type { MouseEncoding } from '../../core/input/mouse.js';
import type { CellRow } from './sgr-cells.js';
import { DirtyLines } from './dirty-lines.js';
import { activeLines, lineBehind, lineWords, type XtermLine } from './xterm-internals.js';

type Terminal = InstanceType<typeof xterm.Terminal>;
type BufferCell = NonNullable<ReturnType<Terminal['buffer']['active']['getNullCell']>>;
type BufferLine = NonNullable<ReturnType<Terminal['buffer']['active']['getLine']>>;

/** Where the terminal's cursor is, relative to its visible rows. */
export interface CursorSpot {
  readonly x: number;
  readonly y: number;
}

/** What a cell's style is read from: a buffer cell, or xterm's pen (its attribute data has the same methods). */
export type CellStyle = Pick<
  BufferCell,
  | 'isBold' | 'isDim' | 'isItalic' | 'isUnderline' | 'isBlink' | 'isInverse' | 'isInvisible' | 'isStrikethrough'
  | 'isFgRGB' | 'isFgPalette' | 'getFgColor' | 'isBgRGB' | 'isBgPalette' | 'getBgColor' | 'isAttributeDefault'
>;

/** The SGR parameters of a cell's colours and attributes ('' for the default style). */
export function cellSgr(cell: CellStyle): string {
  const p: string[] = [];
  if (cell.isBold()) p.push('1');
  if (cell.isDim()) p.push('2');
  if (cell.isItalic()) p.push('3');
  if (cell.isUnderline()) p.push('4');
  if (cell.isBlink()) p.push('5');
  if (cell.isInverse()) p.push('7');
  if (cell.isInvisible()) p.push('8');
  if (cell.isStrikethrough()) p.push('9');
  colour(p, cell.isFgRGB(), cell.isFgPalette(), cell.getFgColor(), 30);
  colour(p, cell.isBgRGB(), cell.isBgPalette(), cell.getBgColor(), 40);
  return p.join(';');
}

function colour(p: string[], rgb: boolean, palette: boolean, value: number, base: 30 | 40): void {
  if (rgb) {
    p.push(`${base + 8};2;${(value >> 16) & 0xff};${(value >> 8) & 0xff};${value & 0xff}`);
  } else if (palette) {
    if (value < 8) p.push(`${base + value}`);
    else if (value < 16) p.push(`${base + 60 + value - 8}`);
    else p.push(`${base + 8};5;${value}`);
  }
}

/** One buffer line as an SGR-coded string of exactly `cols` cells. */
export function lineToSgr(line: BufferLine | undefined, cols: number, cell: BufferCell): string {
  if (!line) return ' '.repeat(cols);
  let out = '';
  let style = '';
  let used = 0;
  const end = Math.min(cols, line.length);
  for (let x = 0; x < end; x++) {
    const c = line.getCell(x, cell);
    if (!c) break;
    const width = c.getWidth();
    if (width === 0) continue; // the right half of a wide character
    if (used + width > cols) break;
    const sgr = cellSgr(c);
    if (sgr !== style) {
      out += sgr === '' ? '\x1b[0m' : `\x1b[0;${sgr}m`;
      style = sgr;
    }
    out += c.getChars() || ' ';
    used += width;
  }
  if (style !== '') out += '\x1b[0m';
  if (used < cols) out += ' '.repeat(cols - used);
  return out;
}

/** One buffer line as exactly `cols` cells (the right half of a wide character is ''). */
export function lineToCells(line: BufferLine | undefined, cols: number, cell: BufferCell): CellRow {
  const chars = new Array<string>(cols).fill(' ');
  const styles = new Array<string>(cols).fill('');
  if (!line) return { chars, styles };
  const end = Math.min(cols, line.length);
  for (let x = 0; x < end; x++) {
    const c = line.getCell(x, cell);
    if (!c) break;
    const width = c.getWidth();
    if (width === 0) {
      chars[x] = '';
      styles[x] = x > 0 ? styles[x - 1] : '';
      continue;
    }
    if (x + width > cols) break;
    chars[x] = c.getChars() || ' ';
    if (!c.isAttributeDefault()) styles[x] = cellSgr(c);
  }
  return { chars, styles };
}

/** A converted line and the cell words it was converted from. */
interface LineMemo {
  readonly data: Uint32Array;
  readonly cols: number;
  readonly row: CellRow;
}

/** Per terminal, what was shown last time, row by row: the line object and its memo (none for a row converted without one). */
interface Shown {
  lines: (object | undefined)[];
  rows: (LineMemo | undefined)[];
  readonly written: DirtyLines;
  /**
   * `term.buffer`, kept: xterm makes that object once, but its getter checks
   * the proposed-API option on every call, and with `getNullCell` (a new
   * cell each call) it was a third of an echo's conversion (issue 17).
   */
  readonly buffers: Terminal['buffer'];
  /** The cell every read goes through (getCell fills it), made once. */
  readonly cell: BufferCell;
}

const shownOf = new WeakMap<Terminal, Shown>();

/** The words per cell in a line's words (xterm-internals.ts lineWords: content, foreground, background). */
const CELL_WORDS = 3;

/**
 * A line that was shown before (`memo`: its words and cells then) as cells
 * now: the memo itself when its words are the same, else its cells with only
 * the cells whose words changed read again (an echoed key: one cell of a
 * line of 160). Where a changed cell is or was part of a wide character, or
 * is the last column (lineToCells stops there before a wide character), the
 * whole line is converted, as lineToCells does.
 */
function reread(memo: LineMemo, data: Uint32Array, line: BufferLine, cols: number, cell: BufferCell): LineMemo {
  const was = memo.data;
  if (was.length !== data.length) return { data: data.slice(), cols, row: lineToCells(line, cols, cell) };
  const end = Math.min(cols, data.length / CELL_WORDS);
  let row: CellRow | undefined;
  for (let x = 0; x < end; x++) {
    const w = x * CELL_WORDS;
    if (was[w] === data[w] && was[w + 1] === data[w + 1] && was[w + 2] === data[w + 2]) continue;
    const old = memo.row;
    const c = line.getCell(x, cell);
    if (!c || c.getWidth() !== 1 || x === cols - 1 || old.chars[x] === '' || old.chars[x + 1] === '') {
      return { data: data.slice(), cols, row: lineToCells(line, cols, cell) };
    }
    row ??= { chars: old.chars.slice(), styles: old.styles.slice() };
    row.chars[x] = c.getChars() || ' ';
    row.styles[x] = c.isAttributeDefault() ? '' : cellSgr(c);
  }
  if (row !== undefined) return { data: data.slice(), cols, row };
  // No cell shown changed: the same cells (and the memo itself when no word past them changed either).
  return sameWords(was, data) ? memo : { data: data.slice(), cols, row: memo.row };
}

function sameWords(a: Uint32Array, b: Uint32Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The cells a pane shows, `scrollback` lines above the bottom (as screenRows).
 * A line that is on the same row as last time and that the parser has not
 * written since (DirtyLines) keeps its row object without being read; a line
 * that moved keeps it when its cells are the same words as when it was last
 * shown: a streaming panel scrolls, so most of its lines only moved, and
 * comparing words is far cheaper than reading every cell through the API.
 */
export function screenCells(term: Terminal, scrollback = 0): CellRow[] {
  let state = shownOf.get(term);
  if (!state) {
    const buffers = term.buffer;
    state = { lines: [], rows: [], written: new DirtyLines(term), buffers, cell: buffers.active.getNullCell() };
    shownOf.set(term, state);
  }
  const buf = state.buffers.active;
  const top = Math.max(0, buf.baseY - Math.max(0, scrollback));
  const { cell } = state;
  const written = state.written.take();
  const before = state;
  /** Last time's memos by line object, made only when a line moved (the echo of a key moves none). */
  let moved: Map<object, LineMemo> | undefined;
  const lines: Shown['lines'] = [];
  const memos: Shown['rows'] = [];
  const rows: CellRow[] = [];
  const { cols } = term;
  const direct = activeLines(term);
  for (let y = 0; y < term.rows; y++) {
    // The line object straight from the buffer: an API view (a new object) only for a line that is read.
    let line = direct === undefined ? buf.getLine(top + y) : undefined;
    const inner: XtermLine | undefined = direct !== undefined ? direct.get(top + y) : lineBehind(line);
    let memo = before.lines[y] === inner ? before.rows[y] : undefined;
    // Unwritten and where it was: known unchanged (and known to have no combined characters: it had none then).
    if (memo !== undefined && memo.cols === cols && !written.all && inner !== undefined && !written.lines.has(inner)) {
      lines.push(inner);
      memos.push(memo);
      rows.push(memo.row);
      continue;
    }
    line ??= buf.getLine(top + y);
    const data = inner === undefined ? undefined : lineWords(inner);
    if (!line || !inner || data === undefined) {
      lines.push(undefined);
      memos.push(undefined);
      rows.push(lineToCells(line, cols, cell));
      continue;
    }
    if (memo === undefined) {
      moved ??= new Map(before.lines.flatMap((l, i) => (l !== undefined && before.rows[i] !== undefined ? [[l, before.rows[i]!] as const] : [])));
      memo = moved.get(inner);
    }
    if (!memo || memo.cols !== cols) memo = { data: data.slice(), cols, row: lineToCells(line, cols, cell) };
    else memo = reread(memo, data, line, cols, cell);
    lines.push(inner);
    memos.push(memo);
    rows.push(memo.row);
  }
  state.lines = lines;
  state.rows = memos;
  return rows;
}

/**
 * The rows a pane shows: the bottom of the buffer, or `scrollback` lines
 * above it (clamped to what the buffer holds).
 */
export function screenRows(term: Terminal, scrollback = 0): string[] {
  const buf = term.buffer.active;
  const top = Math.max(0, buf.baseY - Math.max(0, scrollback));
  const cell = buf.getNullCell();
  const rows: string[] = [];
  for (let y = 0; y < term.rows; y++) rows.push(lineToSgr(buf.getLine(top + y), term.cols, cell));
  return rows;
}

/** The cursor of the terminal, relative to its visible rows at the bottom of the buffer. */
export function cursorOf(term: Terminal): CursorSpot {
  const buf = (shownOf.get(term)?.buffers ?? term.buffer).active; // every frame asks: the kept namespace once there is one
  return { x: Math.min(buf.cursorX, term.cols - 1), y: buf.cursorY };
}

/** Tracks `CSI ? 25 l/h` (hidden cursor), which xterm has no public flag for. */
export function trackCursorVisibility(term: Terminal): { readonly hidden: () => boolean } {
  let hidden = false;
  const watch = (final: 'h' | 'l') =>
    term.parser.registerCsiHandler({ prefix: '?', final }, (params) => {
      if (params.includes(25)) hidden = final === 'l';
      return false;
    });
  watch('h');
  watch('l');
  return { hidden: () => hidden };
}

/**
 * Which encoding a program asked its (headless) terminal to report the mouse
 * in: SGR after DECSET 1006, the default X10 bytes otherwise. xterm.js tracks
 * the tracking mode publicly but not the encoding, so it is watched the way
 * cursor visibility is: the handlers look and let xterm go on.
 */
export function trackMouseEncoding(term: Terminal): { readonly encoding: () => MouseEncoding } {
  let sgr = false;
  const watch = (final: 'h' | 'l') =>
    term.parser.registerCsiHandler({ prefix: '?', final }, (params) => {
      if (params.includes(1006)) sgr = final === 'h';
      return false;
    });
  watch('h');
  watch('l');
  term.parser.registerEscHandler({ final: 'c' }, () => {
    sgr = false; // RIS
    return false;
  });
  return { encoding: () => (sgr ? 'sgr' : 'x10') };
}
