/**
 * The one line splitter, incremental and bounded, for the control socket and for agents. Lines are split on bytes,
 * so a character cut between chunks is decoded whole; a line crossing its cap is reported as it crosses and its
 * rest skipped to the next newline without being kept.
 */

/**
 * The most bytes an agent's line may hold (a tool result in one JSON line can be large). Below the socket's
 * REQUEST_LINE_MAX, set by the largest valid request: this cap only bounds an unfinished line's memory.
 */
export const AGENT_LINE_MAX = 4 * 1_048_576;

/** One piece of the stream: a complete line (without its newline, a trailing CR dropped), or a line over the cap. */
export type Line = { readonly ok: true; readonly text: string } | { readonly ok: false; /** The cap it crossed, in bytes. */ readonly max: number };

const NEWLINE = 0x0a;
const UTF8_IN = new TextEncoder();

/** An incremental line splitter holding at most `max` bytes of an unfinished line. */
export class LineDecoder {
  readonly #utf8 = new TextDecoder('utf-8');
  #parts: Uint8Array[] = [];
  #size = 0;
  /** True while skipping the rest of a line that was too long. */
  #skipping = false;

  constructor(readonly max: number) {}

  /** Bytes of an unfinished line held right now (never more than max). */
  get buffered(): number {
    return this.#size;
  }

  /** Feeds a chunk; returns the lines it completed and the lines it found too long, in order. */
  push(chunk: string | Uint8Array): Line[] {
    const bytes = typeof chunk === 'string' ? UTF8_IN.encode(chunk) : chunk;
    const out: Line[] = [];
    let start = 0;
    while (start < bytes.length) {
      const nl = bytes.indexOf(NEWLINE, start);
      const end = nl === -1 ? bytes.length : nl;
      if (this.#skipping) {
        if (nl !== -1) this.#skipping = false;
      } else if (this.#size + (end - start) > this.max) {
        this.#parts = [];
        this.#size = 0;
        this.#skipping = nl === -1;
        out.push({ ok: false, max: this.max });
      } else if (nl !== -1) {
        if (end > start) this.#keep(bytes.subarray(start, end));
        out.push({ ok: true, text: this.#take() });
      } else {
        // A copy: the caller may reuse its chunk's memory.
        this.#keep(new Uint8Array(bytes.subarray(start, end)));
      }
      if (nl === -1) break;
      start = nl + 1;
    }
    return out;
  }

  /** The stream ended: a last line without a newline still counts (unless it was too long). */
  end(): Line[] {
    if (this.#skipping) {
      this.#skipping = false;
      return [];
    }
    return this.#size === 0 ? [] : [{ ok: true, text: this.#take() }];
  }

  #keep(part: Uint8Array): void {
    this.#parts.push(part);
    this.#size += part.length;
  }

  #take(): string {
    const parts = this.#parts;
    let whole = parts[0] ?? new Uint8Array(0);
    if (parts.length > 1) {
      whole = new Uint8Array(this.#size);
      let at = 0;
      for (const part of parts) {
        whole.set(part, at);
        at += part.length;
      }
    }
    this.#parts = [];
    this.#size = 0;
    const text = this.#utf8.decode(whole);
    return text.endsWith('\r') ? text.slice(0, -1) : text;
  }
}
