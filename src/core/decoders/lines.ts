/**
 * Splits a byte stream into lines (STYLE 6: incremental and bounded): push a
 * chunk, get back the complete lines; a line longer than its cap is never
 * buffered without limit, it is reported as an overflow and skipped.
 */
/** A JSON line may hold at most this many characters (a tool result can be large). */
export const LINE_MAX = 4 * 1024 * 1024;

/** What one push produced: complete lines and how many characters were skipped as too long. */
export interface LinesOut {
  readonly lines: string[];
  /** Characters of over-long lines dropped during this push. */
  readonly overflow: number;
}

/** An incremental, bounded line splitter for UTF-8 input. */
export class LineDecoder {
  readonly #utf8 = new TextDecoder('utf-8');
  #partial = '';
  /** The current line already overflowed: drop until its newline. */
  #skipping = false;

  constructor(readonly max: number = LINE_MAX) {}

  /** Decodes a chunk and returns the lines it completed (without their newline, CR stripped). */
  push(chunk: string | Uint8Array): LinesOut {
    const text = typeof chunk === 'string' ? chunk : this.#utf8.decode(chunk, { stream: true });
    return this.#split(text);
  }

  /** Returns the last unterminated line, if any. */
  end(): LinesOut {
    const rest = this.#split(this.#utf8.decode());
    const lines = [...rest.lines];
    if (this.#partial !== '' && !this.#skipping) lines.push(stripCr(this.#partial));
    this.#partial = '';
    this.#skipping = false;
    return { lines, overflow: rest.overflow };
  }

  #split(text: string): LinesOut {
    const lines: string[] = [];
    let overflow = 0;
    let start = 0;
    for (;;) {
      const nl = text.indexOf('\n', start);
      if (nl < 0) break;
      const piece = text.slice(start, nl);
      if (this.#skipping) {
        overflow += piece.length;
        this.#skipping = false;
      } else if (this.#partial.length + piece.length > this.max) {
        overflow += this.#partial.length + piece.length;
      } else {
        lines.push(stripCr(this.#partial + piece));
      }
      this.#partial = '';
      start = nl + 1;
    }
    const rest = text.slice(start);
    if (this.#skipping) overflow += rest.length;
    else if (this.#partial.length + rest.length > this.max) {
      overflow += this.#partial.length + rest.length;
      this.#partial = '';
      this.#skipping = true;
    } else this.#partial += rest;
    return { lines, overflow };
  }
}

function stripCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}
