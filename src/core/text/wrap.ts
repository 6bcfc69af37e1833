/**
 * Incremental word wrap for a feed pane (docs/spec.md, "Formatter and sanitizing"), of sanitized text. SGR belongs to
 * the word it touches (zero columns); the last word of a chunk is held since the next token often continues it, and a
 * gap at a wrap is dropped. Lines end in CRLF (a feed pane has no tty to translate `\n`). Every character is handled a
 * bounded number of times and a word wider than a line goes out line by line, so nothing held grows past one line.
 */
import stringWidth from 'string-width';
import { segmentGraphemes, standalone } from './graphemes.js';

export { graphemes } from './graphemes.js';

/** Tab stops are every this many columns. */
export const TAB_STOP = 8;

const CRLF = '\r\n';
/** The most UTF-16 units of a run added to the held word at once. */
const RUN_STEP = 512;
const SGR_AT = /\x1b\[[0-9;:]*m/y;
const PRINTABLE_ASCII = /^[\x21-\x7e]*$/;

/**
 * One grapheme, one SGR sequence (width 0), or a run of one-unit graphemes `each` columns wide that a line end may cut
 * after any unit: a flood is a few pieces a line, not an object a character.
 */
interface Piece {
  readonly text: string;
  readonly width: number;
  readonly sgr: boolean;
  /** Columns of every unit of a run; undefined for a single grapheme or SGR. */
  readonly each?: number;
}

/**
 * Characters that are each a grapheme whatever surrounds them (UAX #29): printable ASCII, Latin to U+02FF, U+2010-2BFF
 * without zero-width, format and combining marks. Text of only these skips Intl.Segmenter, whose every call is dear
 * (docs/perf-log.md, "Figures taken out of code comments").
 */
const SINGLE_UNIT_GRAPHEMES = /^[\x20-\x7e\xa0-\u02ff\u2010-\u2027\u2030-\u205f\u2070-\u20cf\u2100-\u2bff]*$/;

/** Widths of the short graphemes seen outside ASCII, bounded. */
const charWidths = new Map<string, number>();
const CHAR_WIDTHS_MAX = 4096;

/** Graphemes longer than this many UTF-16 units are measured each time rather than cached. */
const CACHED_GRAPHEME_MAX = 16;

/** The display width of one grapheme; printable ASCII skips the lookup, other short graphemes (emoji sequences too) are cached. */
export function graphemeWidth(g: string): number {
  if (g.length === 1) {
    const c = g.charCodeAt(0);
    if (c >= 0x20 && c < 0x7f) return 1;
  } else if (g.length > CACHED_GRAPHEME_MAX) return stringWidth(g);
  let w = charWidths.get(g);
  if (w === undefined) {
    w = stringWidth(g);
    if (charWidths.size < CHAR_WIDTHS_MAX) charWidths.set(g, w);
  }
  return w;
}

/** The display width of plain text (no escape sequences), without Intl.Segmenter when every character is a grapheme of its own. */
export function textWidth(text: string): number {
  let w = 0;
  if (SINGLE_UNIT_GRAPHEMES.test(text)) {
    for (let index = 0; index < text.length; index++) w += graphemeWidth(text[index]);
    return w;
  }
  for (const { segment } of segmentGraphemes(text)) w += graphemeWidth(segment);
  return w;
}

/**
 * Clips plain text to at most `maxCols` columns and `maxChars` graphemes, a clipped one ending in `…` within both;
 * never splits a grapheme, so a surrogate pair or a wide character is kept whole or left out.
 */
export function clip(text: string, maxCols: number, maxChars = Number.POSITIVE_INFINITY): string {
  if (maxCols < 1 || maxChars < 1) return '';
  // Every grapheme is at least one UTF-16 unit and at most two columns: text this short fits without a walk
  // (a panel's header, made again every second for its elapsed time).
  if (text.length <= maxChars && 2 * text.length <= maxCols) return text;
  let cols = 0;
  let chars = 0;
  let end = 0; // the end of the longest prefix that still leaves room for the ellipsis
  if (SINGLE_UNIT_GRAPHEMES.test(text)) {
    // The same walk, one UTF-16 unit per grapheme (a panel header 16 times a second).
    for (let index = 0; index < text.length; index++) {
      const w = graphemeWidth(text[index]);
      if (cols + w > maxCols || chars + 1 > maxChars) return text.slice(0, end).trimEnd() + '…';
      cols += w;
      chars += 1;
      if (cols <= maxCols - 1 && chars <= maxChars - 1) end = index + 1;
    }
    return text;
  }
  for (const { segment, index } of segmentGraphemes(text)) {
    const w = graphemeWidth(segment);
    if (cols + w > maxCols || chars + 1 > maxChars) {
      return text.slice(0, end).trimEnd() + '…';
    }
    cols += w;
    chars += 1;
    if (cols <= maxCols - 1 && chars <= maxChars - 1) end = index + segment.length;
  }
  return text;
}

/** Word wrap of a stream of sanitized text to a fixed width, with CRLF line ends. */
export class WordWrap {
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
        let ascii = c > 0x20 && c < 0x7f;
        while (j < n) {
          const d = text.charCodeAt(j);
          if (d === 0x0a || d === 0x0d || d === 0x20 || d === 0x09 || d === 0x1b) break;
          if (d < 0x21 || d > 0x7e) ascii = false;
          j++;
        }
        // A whole ASCII word that fits a line, nothing held before it and a space or line end after it: placed at once,
        // as #place would place it, without a piece or a held word (most words of a token stream).
        if (ascii && j < n && j - i <= this.#width && this.#word.length === 0 && text.charCodeAt(j) !== 0x1b) {
          this.#advance(out, j - i);
          out.push(text.slice(i, j));
          i = j;
          continue;
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
      // ASCII never extends the previous grapheme, so the run is one piece.
      this.#word.push({ text: run, width: run.length, sgr: false, each: 1 });
      this.#wordWidth += run.length;
      return;
    }
    // A combining mark or ZWJ may continue the last grapheme of the previous chunk.
    let src = run;
    const last = this.#popLastGrapheme();
    if (last !== undefined) src = last + run;
    // Characters that join nothing on either side go in runs of one width; the rest go to the segmenter.
    let k = 0;
    const n = src.length;
    while (k < n && standalone(src.charCodeAt(k)) && (k + 1 === n || standalone(src.charCodeAt(k + 1)))) {
      const from = k;
      const each = unitWidth(src.charCodeAt(k));
      k++;
      while (k < n && standalone(src.charCodeAt(k)) && (k + 1 === n || standalone(src.charCodeAt(k + 1))) && unitWidth(src.charCodeAt(k)) === each) k++;
      this.#word.push(k - from === 1 ? { text: src[from] ?? '', width: each, sgr: false } : { text: src.slice(from, k), width: (k - from) * each, sgr: false, each });
      this.#wordWidth += (k - from) * each;
    }
    if (k === n) return;
    for (const { segment } of segmentGraphemes(k === 0 ? src : src.slice(k))) {
      const w = graphemeWidth(segment);
      this.#word.push({ text: segment, width: w, sgr: false });
      this.#wordWidth += w;
    }
  }

  /** Takes the held word's last grapheme off it (the last unit of a run), or nothing when it ends in SGR or is empty. */
  #popLastGrapheme(): string | undefined {
    const last = this.#word[this.#word.length - 1];
    if (last === undefined || last.sgr) return undefined;
    this.#word.pop();
    if (last.each === undefined || last.text.length === 1) {
      this.#wordWidth -= last.width;
      return last.text;
    }
    this.#word.push(runOf(last.text.slice(0, -1), last.each));
    this.#wordWidth -= last.each;
    return last.text.slice(-1);
  }

  /** Emits the held word where it fits: after the gap, else on the next line. */
  #place(out: string[]): void {
    if (this.#word.length === 0) return;
    this.#advance(out, this.#wordWidth);
    out.push(joinPieces(this.#word, 0, this.#word.length));
    this.#word = [];
    this.#wordWidth = 0;
  }

  /** Moves the cursor over a word `w` columns wide about to go out: after the gap, else on the next line (a word wider than a line is broken). */
  #advance(out: string[], w: number): void {
    if (this.#column + this.#gap + w <= this.#width) {
      if (this.#gap > 0) out.push(this.#gap === 1 ? ' ' : ' '.repeat(this.#gap));
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
    // The last grapheme stays held: a joining mark or ZWJ in the next run may still continue it.
    const tail = this.#popLastGrapheme();
    if (tail !== undefined) {
      const w = graphemeWidth(tail);
      this.#word.push({ text: tail, width: w, sgr: false });
      this.#wordWidth += w;
    }
    const word = this.#word;
    const keep = word.length - 1;
    let idx = 0;
    while (this.#wordWidth > this.#width && idx < keep) {
      let line = '';
      let lineWidth = 0;
      while (idx < keep) {
        const p = word[idx];
        if (p === undefined) break;
        if (lineWidth + p.width > this.#width && (lineWidth > 0 || p.each !== undefined)) {
          // A run is cut at the line's end (a line always takes one unit); a grapheme moves down whole (unless the line is empty).
          const room = p.each === undefined || p.each === 0 ? 0 : Math.max(lineWidth > 0 ? 0 : 1, Math.floor((this.#width - lineWidth) / p.each));
          if (room >= p.text.length) {
            line += p.text;
            lineWidth += p.width;
            idx++;
          } else if (room > 0 && p.each !== undefined) {
            line += p.text.slice(0, room);
            lineWidth += room * p.each;
            word[idx] = runOf(p.text.slice(room), p.each);
          }
          break;
        }
        line += p.text;
        lineWidth += p.width;
        idx++;
      }
      out.push(line, CRLF);
      this.#wordWidth -= lineWidth;
    }
    this.#word = word.slice(idx);
  }
}

/** A piece for a run of `text.length` units of `each` columns each (a single unit is a plain grapheme). */
function runOf(text: string, each: number): Piece {
  return text.length === 1 ? { text, width: each, sgr: false } : { text, width: text.length * each, sgr: false, each };
}

/** Columns + 1 of each UTF-16 unit measured as a grapheme of its own (0: not yet measured); 64 KiB, no string made per character. */
const unitWidths = new Uint8Array(0x10000);

/** The columns of a UTF-16 unit that is a grapheme of its own (standalone): printable ASCII is 1, the rest is measured once. */
function unitWidth(c: number): number {
  if (c >= 0x20 && c < 0x7f) return 1;
  const known = unitWidths[c] ?? 0;
  if (known !== 0) return known - 1;
  const w = graphemeWidth(String.fromCharCode(c));
  unitWidths[c] = w + 1;
  return w;
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
