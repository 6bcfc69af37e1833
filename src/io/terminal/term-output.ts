/**
 * The folder `src/io/terminal/`: everything between a pane's bytes and the outer terminal, and this, its main file:
 * the differential output stage Ink writes into, as Ink 6.8 writes the whole frame every time (docs/perf-log.md,
 * "The design that gets there"). A draw pastes the panes' cells over Ink's last frame and writes only the changed
 * cells in one synchronized update; a patch redraws header rows alone; ahead writes a key's echo before its frame.
 */
import { blankRow, parseRow, type CellRow } from './sgr-cells.js';
import { changedRows, changedSpan, inputsOf, rowAt, type Overlay, type Span } from './cells/changed-rows.js';
import { diffRow, FrameBytes } from './cells/row-diff.js';

export type { Overlay } from './cells/changed-rows.js';

/** Where to put the terminal's cursor after a frame; null hides it. */
export type CursorPlace = { readonly x: number; readonly y: number } | null;

/** Counters for the benchmark and tests. */
export interface TermOutputStats {
  frames: number;
  /** Echoes written ahead of their frame. */
  aheads: number;
  /** Frames that wrote something. */
  writes: number;
  bytes: number;
}

/** The inputs of a row that no full frame composed (a patched one): matches none. */
const UNKNOWN: readonly unknown[] = [];

const SYNC_ON = '\x1b[?2026h';
const SYNC_OFF = '\x1b[?2026l';

/** The differential output stage; one per terminal. */
export class TermOutput {
  readonly stats: TermOutputStats = { frames: 0, aheads: 0, writes: 0, bytes: 0 };
  /** Chrome rows copied into a row to paste overlays into (a test's count). */
  rowsCopied = 0;
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
   * Rows compose() made, each with the chrome row and the overlays' spans it was made from, and per row one it
   * made that the terminal no longer shows: the next compose of that row fills it again instead of copying the
   * chrome row into new arrays (a streaming panel's rows change every frame).
   */
  private readonly composed = new WeakMap<CellRow, Made>();
  private spare: (CellRow | undefined)[] = [];
  /** The spans (x, width, ...) of the overlays on the row being composed: kept between rows, not made a row. */
  private spans: number[] = [];
  /** The frame's bytes, in a buffer kept between frames; the span of a row to look at. */
  private readonly bytes = new FrameBytes();
  private readonly span: Span = { from: 0, to: 0 };

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
   * Rings the outer terminal once, between frames: the bell and an OSC 9 message (a desktop notification in iTerm2,
   * WezTerm, kitty, Windows Terminal), one line without controls so it cannot end the sequence early
   * (docs/agents.md, "Notifications").
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
    const out = this.bytes;
    out.reset();
    out.text(SYNC_ON);
    if (this.chrome.length !== this.rows) this.setChrome('');
    if (this.clear) {
      out.text('\x1b[0m\x1b[H\x1b[2J');
      this.cells = Array.from({ length: this.rows }, () => blankRow(this.cols));
      this.sources = [];
      this.clear = false;
    }
    const only = this.chromeChanged || this.chrome.length !== this.rows ? null : changedRows(overlays, this.lastOverlays, this.patched, this.rows);
    this.patched.clear();
    this.lastOverlays = overlays;
    this.chromeChanged = false;
    const { span } = this;
    for (let n = 0, count = only ? only.length : this.rows; n < count; n++) {
      const y = only ? only[n]! : n;
      const last = this.sources[y];
      if (!changedSpan(span, last, this.chrome[y]!, y, overlays, this.cols)) continue;
      this.sources[y] = inputsOf(this.chrome[y]!, y, overlays, last === UNKNOWN ? undefined : (last as unknown[] | undefined));
      const next = this.compose(y, overlays);
      const prev = this.cells[y];
      if (next === prev) continue;
      this.cells[y] = next;
      diffRow(out, y, prev, next, this.cols, span.from, span.to);
      if (prev !== undefined && this.composed.has(prev)) this.spare[y] = prev;
    }
    if (out.style !== '') out.text('\x1b[0m');
    const cursorMoved = !sameCursor(cursor, this.cursor);
    if (out.length > SYNC_ON.length || cursorMoved) {
      if (cursor) {
        out.moveTo(cursor.y, cursor.x);
        if (!this.cursor) out.text('\x1b[?25h');
      } else if (this.cursor !== null) out.text('\x1b[?25l');
      this.cursor = cursor;
    }
    if (out.length === SYNC_ON.length) return 0;
    out.text(SYNC_OFF);
    const bytes = out.length;
    const data = out.take();
    this.write(data);
    this.stats.writes++;
    this.stats.bytes += bytes;
    return data.length;
  }

  /**
   * Draws `overlays` (a silent second's header rows) over what the terminal shows, diffed in their columns only, so
   * the second costs a few dozen cells; false, writing nothing, when the terminal must first be drawn whole.
   */
  patch(overlays: readonly Overlay[]): boolean {
    if (this.clear || this.cursor === undefined || this.chrome.length !== this.rows || this.cells.length !== this.rows) return false;
    this.stats.frames++;
    const out = this.bytes;
    out.reset();
    out.text(SYNC_ON);
    for (const o of overlays) {
      const n = Math.min(o.cols, this.cols - o.x);
      for (let k = 0; k < o.rows.length && n > 0; k++) {
        const y = o.y + k;
        const prev = this.cells[y];
        if (y < 0 || y >= this.rows || !prev || o.x < 0) continue;
        const src = o.rows[k]!;
        const next: CellRow = { chars: prev.chars.slice(), styles: prev.styles.slice() };
        const m = Math.min(n, src.chars.length);
        for (let i = 0; i < m; i++) {
          next.chars[o.x + i] = src.chars[i]!;
          next.styles[o.x + i] = src.styles[i]!;
        }
        diffRow(out, y, prev, next, this.cols, o.x, o.x + m);
        this.cells[y] = next;
        // The row's inputs are no longer those of the last full frame: the next one composes it again.
        this.sources[y] = UNKNOWN;
        this.patched.add(y);
      }
    }
    if (out.length === SYNC_ON.length) return true;
    if (out.style !== '') out.text('\x1b[0m');
    if (this.cursor) out.moveTo(this.cursor.y, this.cursor.x);
    out.text(SYNC_OFF);
    const bytes = out.length;
    this.write(out.take());
    this.stats.writes++;
    this.stats.bytes += bytes;
    return true;
  }

  /**
   * Writes a typed key's echo, `chars` at (x, y) in `style`, ahead of its frame (XtermScreen.echoOf); false, writing
   * nothing, unless the cursor shows at (x, y) and the cells stay off the last column and wide characters. The next
   * draw looks at the row again and writes the truth over a wrong guess.
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

  /** Row `y` of the chrome with every overlay that covers it pasted in (the chrome row itself when none does). */
  private compose(y: number, overlays: readonly Overlay[]): CellRow {
    const base = this.chrome[y]!;
    const spans = this.spans;
    spans.length = 0;
    for (const o of overlays) {
      const src = rowAt(o, y);
      if (src) spans.push(o.x, Math.min(src.chars.length, o.cols, this.cols - o.x));
    }
    if (spans.length === 0) return base;
    const row = this.scratch(y, base, spans);
    for (let k = 0, j = 0; k < overlays.length; k++) {
      const o = overlays[k]!;
      const src = rowAt(o, y);
      if (!src) continue;
      const n = spans[j + 1]!;
      j += 2;
      for (let i = 0; i < n; i++) {
        row.chars[o.x + i] = src.chars[i];
        row.styles[o.x + i] = src.styles[i];
      }
    }
    return row;
  }

  /**
   * A row holding chrome row `base`, to paste overlays into at `spans`: row `y`'s spare when it has one of that
   * width, else a new one. A spare made from the same chrome row with the same spans is not copied again: the
   * overlays write over every cell the chrome's copy would (docs/performance.md, "Optimisations that stay").
   */
  private scratch(y: number, base: CellRow, spans: readonly number[]): CellRow {
    const spare = this.spare[y];
    this.spare[y] = undefined;
    const n = base.chars.length;
    const made = spare === undefined ? undefined : this.composed.get(spare);
    if (made?.base === base && sameSpans(made.spans, spans)) return spare!;
    this.rowsCopied++;
    if (spare === undefined || made === undefined || spare.chars.length !== n || spare.styles.length !== base.styles.length) {
      const row = { chars: base.chars.slice(), styles: base.styles.slice() };
      this.composed.set(row, { base, spans: spans.slice() });
      return row;
    }
    for (let i = 0; i < n; i++) {
      spare.chars[i] = base.chars[i]!;
      spare.styles[i] = base.styles[i]!;
    }
    made.base = base;
    made.spans.splice(0, made.spans.length, ...spans);
    return spare;
  }
}

/** What a composed row was made from: the chrome row and the overlays' spans pasted over it, in order. */
type Made = { base: CellRow; readonly spans: number[] };

function sameSpans(a: readonly number[], b: readonly number[]): boolean {
  let i = a.length === b.length ? 0 : -1;
  while (i >= 0 && i < a.length && a[i] === b[i]) i++;
  return i === a.length;
}

function sameCursor(a: CursorPlace, b: CursorPlace | undefined): boolean {
  if (b === undefined) return false;
  if (a === null || b === null) return a === b;
  return a.x === b.x && a.y === b.y;
}
