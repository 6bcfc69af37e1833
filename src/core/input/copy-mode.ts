/**
 * Copy mode (tmux's prefix `[`, its vi keys), pure: the state and one key give the next state; the cockpit reads the
 * pane's lines (CopyBuffer: scrollback then screen, line 0 the oldest), moves its view to `top` and writes the copy
 * (OSC 52). A selection runs from mark to cursor, both included, as tmux's; columns are string indices (cells for text
 * without wide or astral characters); `n` / `N` repeat the last search, wrapping; lower case ignores case (smart case).
 */

/** What copy mode reads of a pane. */
export interface CopyBuffer {
  readonly length: number;
  readonly rows: number;
  readonly cols: number;
  /** Line `y`'s text, right-trimmed. */
  line(y: number): string;
  /** True when line `y` goes on in line `y + 1` (a soft wrap): copied without a newline. */
  wrapped?(y: number): boolean;
}

/** A cell of the buffer. */
export interface CopyPoint {
  readonly x: number;
  readonly y: number;
}

/** Copy mode's state. */
export interface CopyState {
  readonly top: number;
  readonly cursor: CopyPoint;
  readonly mark: CopyPoint | null;
  /** The search being typed, or null. */
  readonly search: string | null;
  readonly last: string | null;
  /** A short word for the user (not found), cleared by the next key. */
  readonly message: string;
}

/** What a key did: the next state (null: copy mode left) and the text to copy, if any. */
export interface CopyStep {
  readonly state: CopyState | null;
  readonly copied?: string;
}

const UP = ['\x1b[A', '\x1bOA', 'k'];
const DOWN = ['\x1b[B', '\x1bOB', 'j'];
const LEFT = ['\x1b[D', '\x1bOD', 'h'];
const RIGHT = ['\x1b[C', '\x1bOC', 'l'];
const PAGE_UP = ['\x1b[5~', '\x02'];
const PAGE_DOWN = ['\x1b[6~', '\x06'];
const ENTER = ['\r', '\n'];

/** Ctrl-Y: the view a line back (vi); the wheel up in copy mode. */
export const SCROLL_UP = '\x19';
/** Ctrl-E: the view a line on (vi); the wheel down in copy mode. */
export const SCROLL_DOWN = '\x05';

/** Copy mode entered on a pane scrolled back `scrollback` lines, the cursor at `at` (default: the view's last line). */
export function copyStart(buf: CopyBuffer, scrollback: number, at?: CopyPoint): CopyState {
  const bottom = Math.max(0, buf.length - buf.rows);
  const top = Math.min(bottom, Math.max(0, bottom - scrollback));
  const cursor = at ?? { x: 0, y: Math.min(buf.length - 1, top + buf.rows - 1) };
  return follow({ top, cursor: clampPoint(buf, cursor), mark: null, search: null, last: null, message: '' }, buf);
}

/** The lines the view is scrolled back from the bottom (what the board's scrollback is set to). */
export function copyScrollback(s: CopyState, buf: CopyBuffer): number {
  return Math.max(0, buf.length - buf.rows - s.top);
}

/** One key in copy mode. */
export function copyKey(s0: CopyState, key: string, buf: CopyBuffer): CopyStep {
  const s = s0.message === '' ? s0 : { ...s0, message: '' };
  if (s.search !== null) return { state: searchKey(s, s.search, key, buf) };
  const move = (x: number, y: number): CopyStep => ({ state: follow({ ...s, cursor: clampPoint(buf, { x, y }) }, buf) });
  const { x, y } = s.cursor;
  if (UP.includes(key)) return move(x, y - 1);
  if (DOWN.includes(key)) return move(x, y + 1);
  if (LEFT.includes(key)) return move(x - 1, y);
  if (RIGHT.includes(key)) return move(x + 1, y);
  if (PAGE_UP.includes(key) || PAGE_DOWN.includes(key)) {
    const page = (PAGE_UP.includes(key) ? -1 : 1) * Math.max(1, buf.rows - 1);
    const top = clampTop(buf, s.top + page);
    return { state: { ...s, top, cursor: clampPoint(buf, { x, y: y + (top - s.top) }) } };
  }
  if (key === SCROLL_UP || key === SCROLL_DOWN) {
    // vi's C-y / C-e (and the wheel): the view moves a line, the cursor stays in it.
    const top = clampTop(buf, s.top + (key === SCROLL_UP ? -1 : 1));
    return { state: { ...s, top, cursor: clampPoint(buf, { x, y: Math.min(Math.max(y, top), top + buf.rows - 1) }) } };
  }
  if (key === 'g') return move(0, 0);
  if (key === 'G') return move(0, buf.length - 1);
  if (key === '0') return move(0, y);
  if (key === '$') return move(buf.line(y).length - 1, y);
  if (key === '/') return { state: { ...s, search: '' } };
  if (key === 'n' || key === 'N') return { state: s.last === null ? s : find(s, s.last, key === 'n' ? -1 : 1, buf) };
  if (key === 'v' || key === ' ') return { state: { ...s, mark: s.cursor } };
  if (ENTER.includes(key) || key === 'y') return s.mark === null ? { state: null } : { state: null, copied: selected(buf, s.mark, s.cursor) };
  if (key === '\x1b') return { state: s.mark === null ? null : { ...s, mark: null } };
  if (key === 'q' || key === '\x03') return { state: null };
  return { state: s };
}

/** The selection as [from, to] columns (both included) of line `y`, or null where it does not reach. */
export function selectionOn(s: CopyState, y: number, cols: number): readonly [number, number] | null {
  if (s.mark === null) return null;
  const [a, b] = ordered(s.mark, s.cursor);
  if (y < a.y || y > b.y) return null;
  return [y === a.y ? a.x : 0, y === b.y ? b.x : cols - 1];
}

function searchKey(s: CopyState, text: string, key: string, buf: CopyBuffer): CopyState {
  if (ENTER.includes(key)) return text === '' ? { ...s, search: null } : find({ ...s, search: null, last: text }, text, -1, buf);
  if (key === '\x1b' || key === '\x03') return { ...s, search: null };
  if (key === '\x7f' || key === '\b') return { ...s, search: [...text].slice(0, -1).join('') };
  if (key.startsWith('\x1b') || /[\x00-\x1f]/.test(key)) return s; // keys that are not text
  return { ...s, search: text + key };
}

/** Moves the cursor to the next match of `text` in `direction` (-1 back, 1 on), wrapping around. */
function find(s: CopyState, text: string, direction: -1 | 1, buf: CopyBuffer): CopyState {
  const fold = text === text.toLowerCase();
  const needle = fold ? text.toLowerCase() : text;
  const at = (y: number): string => (fold ? buf.line(y).toLowerCase() : buf.line(y));
  const { x, y } = s.cursor;
  for (let i = 0; i <= buf.length; i++) {
    const line = (((y + direction * i) % buf.length) + buf.length) % buf.length;
    const hay = at(line);
    let hit: number;
    if (i === 0) hit = direction < 0 ? (x > 0 ? hay.lastIndexOf(needle, x - 1) : -1) : hay.indexOf(needle, x + 1);
    else if (i < buf.length) hit = direction < 0 ? hay.lastIndexOf(needle) : hay.indexOf(needle);
    else {
      // Wrapped round to the cursor's line: the part the first look did not see, the match under the cursor last.
      const h = direction < 0 ? hay.lastIndexOf(needle) : hay.indexOf(needle);
      hit = (direction < 0 ? h >= x : h <= x) ? h : -1;
    }
    if (hit >= 0) return follow({ ...s, cursor: { x: hit, y: line } }, buf);
  }
  return { ...s, message: `not found: ${text}` };
}

function selected(buf: CopyBuffer, mark: CopyPoint, cursor: CopyPoint): string {
  const [a, b] = ordered(mark, cursor);
  let out = '';
  for (let y = a.y; y <= b.y; y++) {
    out += buf.line(y).slice(y === a.y ? a.x : 0, y === b.y ? b.x + 1 : undefined);
    if (y < b.y && !(buf.wrapped?.(y) ?? false)) out += '\n';
  }
  return out;
}

function ordered(p: CopyPoint, q: CopyPoint): [CopyPoint, CopyPoint] {
  return p.y < q.y || (p.y === q.y && p.x <= q.x) ? [p, q] : [q, p];
}

/**
 * The view follows the cursor: it scrolls just enough to show it, keeping a
 * line above it (the top row of a scrolled-back main pane says so and hides
 * that line; a match is seen with a line of its context).
 */
function follow(s: CopyState, buf: CopyBuffer): CopyState {
  const { y } = s.cursor;
  const top = y <= s.top ? y - 1 : y >= s.top + buf.rows ? y - buf.rows + 1 : s.top;
  return top === s.top ? s : { ...s, top: clampTop(buf, top) };
}

function clampTop(buf: CopyBuffer, top: number): number {
  return Math.min(Math.max(0, buf.length - buf.rows), Math.max(0, top));
}

function clampPoint(buf: CopyBuffer, p: CopyPoint): CopyPoint {
  return { x: Math.min(Math.max(0, buf.cols - 1), Math.max(0, p.x)), y: Math.min(Math.max(0, buf.length - 1), Math.max(0, p.y)) };
}
