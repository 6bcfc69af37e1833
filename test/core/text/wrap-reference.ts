/**
 * The panel word wrap as it was when every grapheme was a piece of its own
 * (src/core/text/wrap.ts before runs of one width became one piece): the
 * reference the property test compares the fast wrap against.
 */
import { segmentGraphemes, standalone } from '../../../src/core/text/graphemes.js';
import { graphemeWidth, TAB_STOP } from '../../../src/core/text/wrap.js';

const CRLF = '\r\n';
const RUN_STEP = 512;
const SGR_AT = /\x1b\[[0-9;:]*m/y;
const PRINTABLE_ASCII = /^[\x21-\x7e]*$/;

/** One grapheme (or one SGR sequence, width 0) of the held word. */
interface Piece {
  readonly text: string;
  readonly width: number;
  readonly sgr: boolean;
}

/** Word wrap of a stream of sanitized text to a fixed width, with CRLF line ends. */
export class ReferenceWordWrap {
  #width: number;
  #column = 0;
  #gap = 0;
  #word: Piece[] = [];
  #wordWidth = 0;

  /** Starts at column 0 with lines of `width` columns. */
  constructor(width: number) {
    this.#width = clampWidth(width);
  }

  /** Changes the width for what comes next; what was already emitted is not reflowed. */
  setWidth(width: number): void {
    this.#width = clampWidth(width);
  }

  /** True while a word is held back waiting for its end. */
  get holding(): boolean {
    return this.#word.length > 0;
  }

  /** The column of the output cursor (held text not counted). */
  get column(): number {
    return this.#column;
  }

  /** Wraps one chunk; the chunk's last word is held unless it ended with a space or newline. */
  push(text: string): string {
    const out: string[] = [];
    const n = text.length;
    let i = 0;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x0a) {
        this.#place(out);
        this.#gap = 0;
        this.#column = 0;
        out.push(CRLF);
        i++;
      } else if (c === 0x0d && text.charCodeAt(i + 1) === 0x0a) {
        i++; // CRLF is one line end: the LF emits it
      } else if (c === 0x0d) {
        // A lone carriage return (kept by the sanitizer for progress lines): back to column 0 of this line.
        this.#place(out);
        this.#gap = 0;
        this.#column = 0;
        out.push('\r');
        i++;
      } else if (c === 0x20) {
        this.#place(out);
        this.#gap++;
        i++;
      } else if (c === 0x09) {
        this.#place(out);
        this.#gap += TAB_STOP - ((this.#column + this.#gap) % TAB_STOP);
        i++;
      } else if (c === 0x1b) {
        SGR_AT.lastIndex = i;
        const m = SGR_AT.exec(text);
        // Sanitized input has no other ESC; a stray one is dropped rather than counted.
        const sgr = m?.[0] ?? '';
        if (sgr !== '') this.#word.push({ text: sgr, width: 0, sgr: true });
        i += sgr === '' ? 1 : sgr.length;
      } else {
        let j = i + 1;
        while (j < n) {
          const d = text.charCodeAt(j);
          if (d === 0x0a || d === 0x0d || d === 0x20 || d === 0x09 || d === 0x1b) break;
          j++;
        }
        // A long run is taken a few lines at a time, so the held word stays short (a flood without spaces).
        const step = Math.max(RUN_STEP, 2 * this.#width);
        for (let k = i; k < j; ) {
          let e = Math.min(j, k + step);
          if (e < j && isHighSurrogate(text.charCodeAt(e - 1))) e--;
          this.#addRun(text.slice(k, e));
          if (this.#wordWidth > this.#width) this.#breakLong(out);
          k = e;
        }
        i = j;
      }
    }
    return out.join('');
  }

  /** Places the held word now (the stream paused, or a structural line follows). */
  release(): string {
    const out: string[] = [];
    this.#place(out);
    return out.join('');
  }

  /** Ends the current line if anything is on it, and forgets a pending gap; call release() first. */
  newline(): string {
    this.#gap = 0;
    if (this.#column === 0) return '';
    this.#column = 0;
    return CRLF;
  }

  #addRun(run: string): void {
    if (PRINTABLE_ASCII.test(run)) {
      // ASCII never extends the previous grapheme, so each character is one piece.
      for (let k = 0; k < run.length; k++) this.#word.push({ text: run[k] ?? '', width: 1, sgr: false });
      this.#wordWidth += run.length;
      return;
    }
    // A combining mark or ZWJ may continue the last grapheme of the previous chunk.
    let src = run;
    const last = this.#word[this.#word.length - 1];
    if (last !== undefined && !last.sgr) {
      this.#word.pop();
      this.#wordWidth -= last.width;
      src = last.text + run;
    }
    // Characters that join nothing on either side are pieces of their own; the rest go to the segmenter.
    let k = 0;
    const n = src.length;
    while (k < n && standalone(src.charCodeAt(k)) && (k + 1 === n || standalone(src.charCodeAt(k + 1)))) {
      const ch = src[k] ?? '';
      const w = graphemeWidth(ch);
      this.#word.push({ text: ch, width: w, sgr: false });
      this.#wordWidth += w;
      k++;
    }
    if (k === n) return;
    for (const { segment } of segmentGraphemes(k === 0 ? src : src.slice(k))) {
      const w = graphemeWidth(segment);
      this.#word.push({ text: segment, width: w, sgr: false });
      this.#wordWidth += w;
    }
  }

  /** Emits the held word where it fits: after the gap, else on the next line. */
  #place(out: string[]): void {
    if (this.#word.length === 0) return;
    const w = this.#wordWidth;
    if (this.#column + this.#gap + w <= this.#width) {
      if (this.#gap > 0) out.push(' '.repeat(this.#gap));
      this.#column += this.#gap + w;
      this.#gap = 0;
    } else if (w === 0) {
      // Only SGR: emit it in place and keep the gap, which will wrap with the next word.
    } else if (w <= this.#width) {
      if (this.#column > 0) out.push(CRLF);
      this.#column = w;
      this.#gap = 0;
    } else {
      this.#breakLong(out);
      this.#column = this.#wordWidth;
    }
    out.push(joinPieces(this.#word, 0, this.#word.length));
    this.#word = [];
    this.#wordWidth = 0;
  }

  /**
   * A word wider than a line starts on a fresh line and is broken at the
   * width; whole lines go out at once and the rest (at most one line, and
   * always its last grapheme) stays held.
   */
  #breakLong(out: string[]): void {
    if (this.#column > 0) out.push(CRLF);
    this.#column = 0;
    this.#gap = 0;
    const word = this.#word;
    // The last piece stays held: a joining mark or ZWJ in the next run may still continue it.
    const keep = word.length - 1;
    let idx = 0;
    while (this.#wordWidth > this.#width && idx < keep) {
      const start = idx;
      let lineWidth = 0;
      while (idx < keep) {
        const p = word[idx];
        if (p === undefined) break;
        // A wide character that would straddle the edge moves down (unless the line is empty).
        if (lineWidth + p.width > this.#width && lineWidth > 0) break;
        lineWidth += p.width;
        idx++;
      }
      out.push(joinPieces(word, start, idx), CRLF);
      this.#wordWidth -= lineWidth;
    }
    this.#word = word.slice(idx);
  }
}

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

function joinPieces(pieces: readonly Piece[], from: number, to: number): string {
  let s = '';
  for (let k = from; k < to; k++) s += pieces[k]?.text ?? '';
  return s;
}

function clampWidth(width: number): number {
  return Number.isFinite(width) ? Math.max(1, Math.floor(width)) : 1;
}
