/**
 * The bytes of a frame of the output stage (term-output.ts), written into
 * one buffer kept between frames: a frame makes one string, not one per
 * cell (docs/performance.md, "Optimisations that stay").
 */
import type { CellRow } from '../sgr-cells.js';

/** Unchanged cells between two changed runs that are rewritten rather than jumped over (a jump costs ~8 bytes). */
const GAP_MERGE = 6;

/** The bytes of one frame, and the pen the terminal has after them. */
export class FrameBytes {
  /** The pen ('' the default) after the bytes written so far. */
  style = '';
  private buf = Buffer.allocUnsafe(16 * 1024);
  private n = 0;
  /** Whether every byte so far is ASCII (the string is then read as latin1, faster than UTF-8). */
  private ascii = true;

  /** The bytes written since the last take. */
  get length(): number {
    return this.n;
  }

  /** Starts a frame (its pen the default). */
  reset(): void {
    this.n = 0;
    this.ascii = true;
    this.style = '';
  }

  /** Appends `text`, which is ASCII. */
  text(text: string): void {
    const len = text.length;
    this.room(len);
    const { buf } = this;
    let n = this.n;
    for (let i = 0; i < len; i++) buf[n++] = text.charCodeAt(i);
    this.n = n;
  }

  /** Appends the cursor's move to row `y`, column `x` (both from 0). */
  moveTo(y: number, x: number): void {
    this.room(24);
    this.put(0x1b);
    this.put(0x5b);
    this.digits(y + 1);
    this.put(0x3b);
    this.digits(x + 1);
    this.put(0x48);
  }

  /** Sets the pen to `style` (canonical SGR parameters) unless it has it. */
  pen(style: string): void {
    if (style === this.style) return;
    this.style = style;
    if (style === '') return this.text('\x1b[0m');
    this.text('\x1b[0;');
    this.text(style);
    this.text('m');
  }

  /** Appends one cell's character (any text). */
  char(ch: string): void {
    const code = ch.length === 1 ? ch.charCodeAt(0) : 0x80;
    if (code < 0x80) {
      this.room(1);
      this.buf[this.n++] = code;
      return;
    }
    this.room(ch.length * 3);
    this.n += this.buf.write(ch, this.n, 'utf8');
    this.ascii = false;
  }

  /** The bytes written since the last take (or reset) as one string; empties the buffer and keeps the pen. */
  take(): string {
    const s = this.n === 0 ? '' : this.buf.toString(this.ascii ? 'latin1' : 'utf8', 0, this.n);
    this.n = 0;
    this.ascii = true;
    return s;
  }

  private put(byte: number): void {
    this.buf[this.n++] = byte;
  }

  private digits(v: number): void {
    if (v >= 10) this.digits(Math.floor(v / 10));
    this.put(0x30 + (v % 10));
  }

  private room(k: number): void {
    if (this.n + k <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.n + k));
    this.buf.copy(next, 0, 0, this.n);
    this.buf = next;
  }
}

/** Appends to `out` the bytes that turn row `prev` into row `next` of a `cols`-wide terminal (they differ only in columns `from` to `to`). */
export function diffRow(out: FrameBytes, y: number, prev: CellRow, next: CellRow, cols: number, from: number, to: number): void {
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
    out.moveTo(y, start);
    for (let j = start; j < end; j++) {
      const ch = next.chars[j]!;
      if (ch === '') continue;
      out.pen(next.styles[j]!);
      out.char(ch);
    }
    x = end;
  }
}
