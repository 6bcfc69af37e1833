/**
 * The folder `src/io/terminal/cells/`: the panes' cells on their hot path, from the headless screens' buffers to the
 * output stage's bytes, with as little garbage as it can (docs/performance.md, "Optimisations that stay"). This file,
 * its main one: an `@xterm/headless` buffer as rows of cells, exactly `cols` wide (a wide character's right half is
 * ''), each style the canonical SGR parameters (sgr-cells.ts); only changed cells are read again.
 */
import type xterm from '@xterm/headless';
import type { CellRow } from '../sgr-cells.js';
import { DirtyLines } from '../dirty-lines.js';
import { activeLines, lineBehind, lineWords, type XtermLine } from '../xterm-internals.js';

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

/** The SGR parameters already made, by a cell's attributes and foreground (the outer key) and background; bounded. */
const sgrOf = new Map<number, Map<number, string>>();
const SGR_MAX = 1024;
let sgrMade = 0;

/** How a colour is given (0 default, 1 palette, 2 RGB) and its value, as one number of at most 26 bits. */
const colourKey = (rgb: boolean, palette: boolean, value: number): number => (rgb ? 2 : palette ? 1 : 0) * 0x1000000 + (value & 0xffffff);

/** The SGR parameters of a cell's colours and attributes ('' for the default style); the same style is one string, made once. */
export function cellSgr(cell: CellStyle): string {
  let flags = 0;
  if (cell.isBold()) flags |= 1;
  if (cell.isDim()) flags |= 2;
  if (cell.isItalic()) flags |= 4;
  if (cell.isUnderline()) flags |= 8;
  if (cell.isBlink()) flags |= 16;
  if (cell.isInverse()) flags |= 32;
  if (cell.isInvisible()) flags |= 64;
  if (cell.isStrikethrough()) flags |= 128;
  const fg = flags * 0x4000000 + colourKey(cell.isFgRGB(), cell.isFgPalette(), cell.getFgColor());
  const bg = colourKey(cell.isBgRGB(), cell.isBgPalette(), cell.getBgColor());
  let byBg = sgrOf.get(fg);
  const known = byBg?.get(bg);
  if (known !== undefined) return known;
  const sgr = makeSgr(cell);
  if (sgrMade < SGR_MAX) {
    if (byBg === undefined) sgrOf.set(fg, (byBg = new Map()));
    byBg.set(bg, sgr);
    sgrMade++;
  }
  return sgr;
}

function makeSgr(cell: CellStyle): string {
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

/** Per width, the styles of a row all in the default style: plain text's rows share it (no row is written after it is made). */
const plainStyles = new Map<number, string[]>();

function plainOf(cols: number): string[] {
  let styles = plainStyles.get(cols);
  if (styles === undefined) {
    styles = new Array<string>(cols).fill('');
    if (plainStyles.size < 64) plainStyles.set(cols, styles);
  }
  return styles;
}

/** One buffer line as exactly `cols` cells (the right half of a wide character is ''). */
export function lineToCells(line: BufferLine | undefined, cols: number, cell: BufferCell): CellRow {
  const chars = new Array<string>(cols).fill(' ');
  /** Made at the first cell not in the default style: plain text's rows share plainOf's. */
  let styles: string[] | undefined;
  if (!line) return { chars, styles: plainOf(cols) };
  const end = Math.min(cols, line.length);
  for (let x = 0; x < end; x++) {
    const c = line.getCell(x, cell);
    if (!c) break;
    const width = c.getWidth();
    if (width === 0) {
      chars[x] = '';
      if (styles !== undefined && x > 0) styles[x] = styles[x - 1]!;
      continue;
    }
    if (x + width > cols) break;
    chars[x] = c.getChars() || ' ';
    if (c.isAttributeDefault()) continue;
    styles ??= new Array<string>(cols).fill('');
    styles[x] = cellSgr(c);
  }
  return { chars, styles: styles ?? plainOf(cols) };
}

/** A converted line and the cell words it was converted from; its line's own (a changed line updates it in place). */
interface LineMemo {
  readonly data: Uint32Array;
  readonly cols: number;
  row: CellRow;
  /** The last conversion (Shown.turn) that showed it. */
  turn: number;
}

/** Per terminal, what was shown last time, row by row: the line object and its memo (none for a row converted without one). */
interface Shown {
  lines: (object | undefined)[];
  rows: (LineMemo | undefined)[];
  /** The arrays of the conversion before last, written over by the next one. */
  lastLines: (object | undefined)[];
  lastRows: (LineMemo | undefined)[];
  /** Conversions so far; the words of memos the last one no longer showed, for new lines' words. */
  turn: number;
  readonly spareWords: Uint32Array[];
  readonly written: DirtyLines;
  /** `term.buffer`, kept: its getter checks the proposed-API option on every call, a cost on an echo's path. */
  readonly buffers: Terminal['buffer'];
  /** The cell every read goes through (getCell fills it), made once. */
  readonly cell: BufferCell;
}

const shownOf = new WeakMap<Terminal, Shown>();

/** The words per cell in a line's words (xterm-internals.ts lineWords: content, foreground, background). */
const CELL_WORDS = 3;

/**
 * A line shown before (`memo`: its words and cells then) as cells now, reading again only the cells whose words
 * changed (an echoed key: one cell of 160); the whole line when a changed cell is, or was, part of a wide character
 * or the last column (where lineToCells stops before a wide character).
 */
function reread(memo: LineMemo, data: Uint32Array, line: BufferLine, cols: number, cell: BufferCell, state: Shown): LineMemo {
  const was = memo.data;
  if (was.length !== data.length) return memoOf(state, data, cols, lineToCells(line, cols, cell));
  const end = Math.min(cols, data.length / CELL_WORDS);
  let row: CellRow | undefined;
  for (let x = 0; x < end; x++) {
    const w = x * CELL_WORDS;
    if (was[w] === data[w] && was[w + 1] === data[w + 1] && was[w + 2] === data[w + 2]) continue;
    const old = memo.row;
    const c = line.getCell(x, cell);
    if (!c || c.getWidth() !== 1 || x === cols - 1 || old.chars[x] === '' || old.chars[x + 1] === '') {
      row = lineToCells(line, cols, cell);
      break;
    }
    row ??= { chars: old.chars.slice(), styles: old.styles };
    row.chars[x] = c.getChars() || ' ';
    const style = c.isAttributeDefault() ? '' : cellSgr(c);
    if (row.styles[x] === style) continue;
    if (row.styles === old.styles) row = { chars: row.chars, styles: old.styles.slice() };
    row.styles[x] = style;
  }
  // No cell shown changed: the same cells (a word past them may have).
  if (row !== undefined) memo.row = row;
  was.set(data);
  return memo;
}

/** A new memo of `data`'s words, copied into the words of a memo no longer shown when one has the length. */
function memoOf(state: Shown, data: Uint32Array, cols: number, row: CellRow): LineMemo {
  const spare = state.spareWords;
  let words: Uint32Array | undefined;
  for (let i = spare.length - 1; i >= 0; i--) {
    if (spare[i]!.length !== data.length) continue;
    words = spare[i]!;
    spare[i] = spare[spare.length - 1]!;
    spare.pop();
    words.set(data);
    break;
  }
  return { data: words ?? data.slice(), cols, row, turn: state.turn };
}

/**
 * The cells a pane shows, `scrollback` lines above the bottom (as screenRows). A line the parser has not written
 * since (DirtyLines) keeps its row unread; one that moved keeps it while its words are the same, since a streaming
 * panel's lines mostly only move and comparing words is far cheaper than reading cells through the API.
 */
export function screenCells(term: Terminal, scrollback = 0): CellRow[] {
  let state = shownOf.get(term);
  if (!state) {
    const buffers = term.buffer;
    state = { lines: [], rows: [], lastLines: [], lastRows: [], turn: 0, spareWords: [], written: new DirtyLines(term), buffers, cell: buffers.active.getNullCell() };
    shownOf.set(term, state);
  }
  const buf = state.buffers.active;
  const top = Math.max(0, buf.baseY - Math.max(0, scrollback));
  const { cell } = state;
  const written = state.written.take();
  const before = { lines: state.lines, rows: state.rows };
  const turn = ++state.turn;
  /** Where in last time's rows to look first for a line that moved. */
  let from = 0;
  const lines = state.lastLines;
  const memos = state.lastRows;
  const rows = new Array<CellRow>(term.rows);
  const { cols } = term;
  const direct = activeLines(term);
  for (let y = 0; y < term.rows; y++) {
    // The line object straight from the buffer: an API view (a new object) only for a line that is read.
    let line = direct === undefined ? buf.getLine(top + y) : undefined;
    const inner: XtermLine | undefined = direct !== undefined ? direct.get(top + y) : lineBehind(line);
    let memo = before.lines[y] === inner ? before.rows[y] : undefined;
    // Unwritten and where it was: known unchanged (and known to have no combined characters: it had none then).
    if (memo !== undefined && memo.cols === cols && !written.all && inner !== undefined && !written.lines.has(inner)) {
      lines[y] = inner;
      memos[y] = memo;
      memo.turn = turn;
      rows[y] = memo.row;
      continue;
    }
    line ??= buf.getLine(top + y);
    const data = inner === undefined ? undefined : lineWords(inner);
    if (!line || !inner || data === undefined) {
      lines[y] = undefined;
      memos[y] = undefined;
      rows[y] = lineToCells(line, cols, cell);
      continue;
    }
    if (memo === undefined) {
      // The line moved: looked for where the last line found moved from plus one (a scroll moves them all alike).
      const at = before.lines[from] === inner ? from : before.lines.indexOf(inner);
      if (at >= 0) {
        memo = before.rows[at];
        from = at + 1;
      }
    }
    if (!memo || memo.cols !== cols) memo = memoOf(state, data, cols, lineToCells(line, cols, cell));
    else memo = reread(memo, data, line, cols, cell, state);
    memo.turn = turn;
    lines[y] = inner;
    memos[y] = memo;
    rows[y] = memo.row;
  }
  lines.length = memos.length = term.rows;
  // The words of memos no longer shown (their lines scrolled away) take the next new lines' words.
  for (const m of before.rows) if (m !== undefined && m.turn !== turn && state.spareWords.length < term.rows) state.spareWords.push(m.data);
  state.lastLines = before.lines;
  state.lastRows = before.rows;
  state.lines = lines;
  state.rows = memos;
  return rows;
}

/** The cursor of the terminal, relative to its visible rows at the bottom of the buffer. */
export function cursorOf(term: Terminal): CursorSpot {
  const buf = (shownOf.get(term)?.buffers ?? term.buffer).active; // every frame asks: the kept namespace once there is one
  return { x: Math.min(buf.cursorX, term.cols - 1), y: buf.cursorY };
}

