/**
 * The folder `src/io/terminal/`: everything between a pane's bytes and the
 * outer terminal: the headless screens, their rows as SGR strings and cells,
 * the render cue, Ink's stdout and this output stage, its main file.
 *
 * The differential output stage between Ink and the terminal. Ink 6.8 writes
 * the whole frame every time (and its incremental mode is broken, ink#894,
 * ink#1023), so Ink writes into this stage instead of the terminal.
 *
 * Vocabulary:
 * - chrome: Ink's last frame (headers, separators, help), kept as cells; a
 *   row is parsed again only when its string changed.
 * - overlay: a pane's screen cells pasted over the chrome at the pane's body
 *   rectangle. The screens' cells go from the xterm buffer straight here, so
 *   streamed text never passes through Ink's output stage, whose cost is
 *   per frame and whose caches never evict (docs/performance.md).
 * - draw: chrome plus overlays are compared with what the terminal shows,
 *   cell by cell, and only the changed cells are written, inside one
 *   synchronized update (`CSI ? 2026 h/l`), followed by the cursor. A frame
 *   identical to the last one writes nothing at all.
 * - patch: a frame of header rows alone (a silent second's elapsed time),
 *   diffed in their columns only against what the terminal shows; the next
 *   draw looks at those rows again.
 * - ahead: a typed key's echo written before its frame, at the cursor
 *   (XtermScreen.echoOf); the next draw looks at that row again too.
 */
import { blankRow, parseRow, type CellRow } from './sgr-cells.js';

/** Where to put the terminal's cursor after a frame; null hides it. */
export type CursorPlace = { readonly x: number; readonly y: number } | null;

/** A pane's cells and where they go. */
export interface Overlay {
  readonly x: number;
  readonly y: number;
  /** The width of the rectangle; wider rows are cut (a screen may lag a resize by a frame). */
  readonly cols: number;
  readonly rows: readonly CellRow[];
}

/** Counters for the benchmark and tests. */
export interface TermOutputStats {
  frames: number;
  /** Echoes written ahead of their frame. */
  aheads: number;
  /** Frames that wrote something. */
  writes: number;
  bytes: number;
}

/** Unchanged cells between two changed runs that are rewritten rather than jumped over (a jump costs ~8 bytes). */
const GAP_MERGE = 6;

/** The inputs of a row that no full frame composed (a patched one): matches none. */
const UNKNOWN: readonly unknown[] = [];

const SYNC_ON = '\x1b[?2026h';
const SYNC_OFF = '\x1b[?2026l';

/** The differential output stage; one per terminal. */
export class TermOutput {
  readonly stats: TermOutputStats = { frames: 0, aheads: 0, writes: 0, bytes: 0 };
  private texts: string[] = [];
  private chrome: CellRow[] = [];
  private cells: CellRow[] = [];
  /** Per row, the chrome and overlay rows it was composed from (by identity): unchanged inputs skip the row. */
  private sources: (readonly unknown[])[] = [];
  private cursor: CursorPlace | undefined;
  private clear = true;
  /** The overlays of the last frame, and whether a chrome row changed since it: a frame of the same overlays looks only at the rows of those that changed. */
  private lastOverlays: readonly Overlay[] = [];
  private chromeChanged = true;
  /** Rows patched since the last full frame (a set: at most one entry a row, however many seconds pass): it looks at them again, whatever its overlays. */
  private readonly patched = new Set<number>();
  /**
   * Rows compose() made, and per row one it made that the terminal no longer
   * shows: the next compose of that row fills it again instead of copying the
   * chrome row into new arrays (a streaming panel's rows change every frame).
   */
  private readonly composed = new WeakSet<CellRow>();
  private spare: (CellRow | undefined)[] = [];

  constructor(
    private readonly write: (data: string) => void,
    private cols: number,
    private rows: number,
  ) {}

  /** The terminal changed size: the next frame clears and redraws everything. */
  resize(cols: number, rows: number): void {
    this.cols = Math.max(1, cols);
    this.rows = Math.max(1, rows);
    this.invalidate();
  }

  /** Forgets what is on the terminal and the chrome (a new size: Ink draws a new frame). */
  invalidate(): void {
    this.texts = [];
    this.chrome = [];
    this.repaint();
  }

  /** Forgets what is on the terminal only, keeping the chrome: the next frame clears and draws everything (a client attached). */
  repaint(): void {
    this.cells = [];
    this.sources = [];
    this.cursor = undefined;
    this.clear = true;
    this.chromeChanged = true;
  }

  /** Keeps Ink's frame (rows joined by '\n') as the chrome under the overlays; draws nothing. */
  setChrome(frame: string): void {
    const lines = frame.split('\n');
    if (this.chrome.length !== this.rows) {
      this.chrome = Array.from({ length: this.rows }, () => blankRow(this.cols));
      this.texts = new Array<string>(this.rows).fill('');
      this.chromeChanged = true;
    }
    for (let y = 0; y < this.rows; y++) {
      const text = lines[y] ?? '';
      if (text === this.texts[y]) continue;
      this.texts[y] = text;
      this.chrome[y] = parseRow(text, this.cols);
      this.chromeChanged = true;
    }
  }

  /** Chrome and a frame in one step, without overlays; returns the bytes written. */
  frame(frame: string, cursor: CursorPlace): number {
    this.setChrome(frame);
    return this.draw([], cursor);
  }

  /**
   * Rings the outer terminal once: the bell and an OSC 9 message (iTerm2,
   * WezTerm, kitty, Windows Terminal show it as a desktop notification).
   * Between frames, never inside one; the message is one line without
   * controls, so it cannot end the sequence early (issue: approvals).
   */
  ring(message: string): void {
    const text = [...message.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ')].slice(0, 200).join('');
    const data = `\x07\x1b]9;${text}\x07`;
    this.write(data);
    this.stats.writes++;
    this.stats.bytes += Buffer.byteLength(data);
  }

  /** Writes what changed on the terminal: the chrome with `overlays` pasted over it; returns the bytes written. */
  draw(overlays: readonly Overlay[], cursor: CursorPlace): number {
    this.stats.frames++;
    let out = '';
    if (this.chrome.length !== this.rows) this.setChrome('');
    if (this.clear) {
      out += '\x1b[0m\x1b[H\x1b[2J';
      this.cells = Array.from({ length: this.rows }, () => blankRow(this.cols));
      this.sources = [];
      this.clear = false;
    }
    let style = '';
    const only = this.changedRows(overlays);
    this.patched.clear();
    this.lastOverlays = overlays;
    this.chromeChanged = false;
    for (let n = 0, count = only ? only.length : this.rows; n < count; n++) {
      const y = only ? only[n] : n;
      const span = this.changedSpan(y, overlays);
      if (span === null) continue;
      this.sources[y] = this.inputs(y, overlays);
      const next = this.compose(y, overlays);
      const prev = this.cells[y];
      if (next === prev) continue;
      this.cells[y] = next;
      const r = this.diffRow(y, prev, next, style, span.from, span.to);
      out += r.out;
      style = r.style;
      if (prev !== undefined && this.composed.has(prev)) this.spare[y] = prev;
    }
    if (style !== '') out += '\x1b[0m';
    const cursorMoved = !sameCursor(cursor, this.cursor);
    if (out !== '' || cursorMoved) {
      if (cursor) out += `\x1b[${cursor.y + 1};${cursor.x + 1}H${this.cursor ? '' : '\x1b[?25h'}`;
      else if (this.cursor !== null) out += '\x1b[?25l';
      this.cursor = cursor;
    }
    if (out === '') return 0;
    const data = SYNC_ON + out + SYNC_OFF;
    this.write(data);
    this.stats.writes++;
    this.stats.bytes += Buffer.byteLength(data);
    return data.length;
  }

  /**
   * Draws `overlays` over what the terminal shows, and nothing else: the
   * frame of a second whose only change is header rows (their elapsed time).
   * Each covered row is diffed in the overlay's columns only, the changed
   * cells written in one synchronized update, then the cursor put back where
   * the last frame left it. No chrome, no other pane is looked at, so a
   * silent cockpit's second costs a few dozen cells. Returns false, writing
   * nothing, when the terminal has to be drawn whole first (cleared, resized,
   * or not yet drawn): the caller draws a full frame instead.
   */
  patch(overlays: readonly Overlay[]): boolean {
    if (this.clear || this.cursor === undefined || this.chrome.length !== this.rows || this.cells.length !== this.rows) return false;
    this.stats.frames++;
    let out = '';
    let style = '';
    for (const o of overlays) {
      const n = Math.min(o.cols, this.cols - o.x);
      for (let k = 0; k < o.rows.length && n > 0; k++) {
        const y = o.y + k;
        const prev = this.cells[y];
        if (y < 0 || y >= this.rows || !prev || o.x < 0) continue;
        const src = o.rows[k];
        const next: CellRow = { chars: prev.chars.slice(), styles: prev.styles.slice() };
        const m = Math.min(n, src.chars.length);
        for (let i = 0; i < m; i++) {
          next.chars[o.x + i] = src.chars[i];
          next.styles[o.x + i] = src.styles[i];
        }
        const r = this.diffRow(y, prev, next, style, o.x, o.x + m);
        this.cells[y] = next;
        // The row's inputs are no longer those of the last full frame: the next one composes it again.
        this.sources[y] = UNKNOWN;
        this.patched.add(y);
        out += r.out;
        style = r.style;
      }
    }
    if (out === '') return true;
    if (style !== '') out += '\x1b[0m';
    if (this.cursor) out += `\x1b[${this.cursor.y + 1};${this.cursor.x + 1}H`;
    const data = SYNC_ON + out + SYNC_OFF;
    this.write(data);
    this.stats.writes++;
    this.stats.bytes += Buffer.byteLength(data);
    return true;
  }

  /**
   * Writes a typed key's echo, `chars` at (x, y) in `style`, ahead of its
   * frame (XtermScreen.echoOf); false, writing nothing, when the terminal is
   * not drawn yet, its cursor is not at (x, y) or hidden, or the cells would
   * reach the last column or touch a wide character. It leaves the cursor
   * after them, where the echo leaves the program's; the next draw looks at
   * the row again and writes the truth over a wrong guess.
   */
  ahead(x: number, y: number, chars: string, style: string): boolean {
    const cursor = this.cursor;
    const row = this.cells[y];
    const end = x + chars.length;
    if (chars.length < 1 || this.clear || !cursor || cursor.x !== x || cursor.y !== y || !row || end >= this.cols || row.chars[x] === '' || row.chars[end] === '') return false;
    const data = `\x1b[${y + 1};${x + 1}H${style === '' ? '' : `\x1b[0;${style}m`}${chars}${style === '' ? '' : '\x1b[0m'}`;
    this.write(data); // first: the bookkeeping below can wait, the echo cannot
    const next: CellRow = { chars: row.chars.slice(), styles: row.styles.slice() };
    for (let i = 0; i < chars.length; i++) {
      next.chars[x + i] = chars[i]!;
      next.styles[x + i] = style;
    }
    this.cells[y] = next;
    this.sources[y] = UNKNOWN;
    this.patched.add(y);
    this.cursor = { x: end, y };
    this.stats.aheads++;
    this.stats.writes++;
    this.stats.bytes += data.length; // ASCII: one byte a character
    return true;
  }

  /**
   * The rows to look at, when this frame's overlays are the last frame's
   * objects at the same places but for some rows (a second's new headers):
   * the rows of those, in order; null for every row. Rows whose every input
   * is the same object as before would be skipped by changedSpan anyway.
   */
  private changedRows(overlays: readonly Overlay[]): number[] | null {
    const last = this.lastOverlays;
    if (this.chromeChanged || this.chrome.length !== this.rows || overlays.length !== last.length) return null;
    const rows: number[] = [...this.patched];
    for (let i = 0; i < overlays.length; i++) {
      const o = overlays[i];
      const p = last[i];
      if (o === p) continue;
      if (o.x !== p.x || o.y !== p.y || o.cols !== p.cols || o.rows.length !== p.rows.length) return null;
      for (let k = 0; k < o.rows.length; k++) {
        const y = o.y + k;
        if (o.rows[k] !== p.rows[k] && y >= 0 && y < this.rows) rows.push(y);
      }
    }
    return rows.sort((a, b) => a - b).filter((y, i) => i === 0 || rows[i - 1] !== y);
  }

  /**
   * The columns of row `y` whose inputs changed since last frame: null when
   * the row is made of the same rows at the same places (checked without
   * allocating), the span of the overlays whose row changed when only those
   * did (a streaming panel beside an unchanged main pane), else the whole row.
   */
  private changedSpan(y: number, overlays: readonly Overlay[]): { from: number; to: number } | null {
    const whole = { from: 0, to: this.cols };
    const last = this.sources[y];
    if (!last || last[0] !== this.chrome[y]) return whole;
    let from = this.cols;
    let to = 0;
    let i = 1;
    for (const o of overlays) {
      const src = rowAt(o, y);
      if (!src) continue;
      if (i + 2 >= last.length || last[i + 1] !== o.x || last[i + 2] !== o.cols) return whole;
      if (last[i] !== src) {
        from = Math.min(from, o.x);
        to = Math.max(to, Math.min(this.cols, o.x + o.cols));
      }
      i += 3;
    }
    if (i !== last.length) return whole;
    return to > from ? { from, to } : null;
  }

  /** The rows that make up row `y`: its chrome row, then each covering overlay's row and place. */
  private inputs(y: number, overlays: readonly Overlay[]): unknown[] {
    const refs: unknown[] = [this.chrome[y]];
    for (const o of overlays) {
      const src = rowAt(o, y);
      if (src) refs.push(src, o.x, o.cols);
    }
    return refs;
  }

  /** Row `y` of the chrome with every overlay that covers it pasted in (the chrome row itself when none does). */
  private compose(y: number, overlays: readonly Overlay[]): CellRow {
    const base = this.chrome[y];
    let row: CellRow | undefined;
    for (const o of overlays) {
      const src = rowAt(o, y);
      if (!src) continue;
      row ??= this.scratch(y, base);
      const n = Math.min(src.chars.length, o.cols, this.cols - o.x);
      for (let i = 0; i < n; i++) {
        row.chars[o.x + i] = src.chars[i];
        row.styles[o.x + i] = src.styles[i];
      }
    }
    return row ?? base;
  }

  /** A row holding chrome row `base`, to paste overlays into: row `y`'s spare when it has one of that width, else a new one. */
  private scratch(y: number, base: CellRow): CellRow {
    const spare = this.spare[y];
    this.spare[y] = undefined;
    const n = base.chars.length;
    if (spare === undefined || spare.chars.length !== n || spare.styles.length !== base.styles.length) {
      const row = { chars: base.chars.slice(), styles: base.styles.slice() };
      this.composed.add(row);
      return row;
    }
    for (let i = 0; i < n; i++) {
      spare.chars[i] = base.chars[i]!;
      spare.styles[i] = base.styles[i]!;
    }
    return spare;
  }

  /** The bytes that turn row `prev` into row `next` (which differ only in columns `from` to `to`), starting in pen `style`. */
  private diffRow(y: number, prev: CellRow, next: CellRow, style: string, from: number, to: number): { out: string; style: string } {
    let out = '';
    const cols = this.cols;
    let x = from;
    while (x < to) {
      if (prev.chars[x] === next.chars[x] && prev.styles[x] === next.styles[x]) {
        x++;
        continue;
      }
      // A changed run: extend it while cells change or the gap is short.
      let start = x;
      let end = x + 1;
      let same = 0;
      for (let j = x + 1; j < to; j++) {
        if (prev.chars[j] === next.chars[j] && prev.styles[j] === next.styles[j]) {
          if (++same > GAP_MERGE) break;
        } else {
          same = 0;
          end = j + 1;
        }
      }
      if (start > 0 && next.chars[start] === '') start--; // begin at the left half of a wide character
      if (end < cols && next.chars[end] === '') end++; // and end after its right half
      out += `\x1b[${y + 1};${start + 1}H`;
      for (let j = start; j < end; j++) {
        const ch = next.chars[j];
        if (ch === '') continue;
        const s = next.styles[j];
        if (s !== style) {
          out += s === '' ? '\x1b[0m' : `\x1b[0;${s}m`;
          style = s;
        }
        out += ch;
      }
      x = end;
    }
    return { out, style };
  }
}

/** The overlay's row at screen row `y`, if it covers it (checked first: a negative index is a slow property lookup). */
function rowAt(o: Overlay, y: number): CellRow | undefined {
  const i = y - o.y;
  return i >= 0 && i < o.rows.length ? o.rows[i] : undefined;
}

function sameCursor(a: CursorPlace, b: CursorPlace | undefined): boolean {
  if (b === undefined) return false;
  if (a === null || b === null) return a === b;
  return a.x === b.x && a.y === b.y;
}
