/**
 * An incremental, bounded JSON-lines decoder (STYLE.md, habit 6):
 * `push(chunk)` returns the complete lines' values; a line longer than the cap
 * is refused as soon as it crosses the cap, and its remaining bytes are
 * skipped up to the next newline without being kept. Lines are split on
 * bytes, so a multi-byte character cut between two chunks is decoded whole.
 * Blank lines are ignored; a trailing "\r" is dropped.
 */
import { messageOf } from '../errors.js';
import { MPLEX_VPANE_HEADER_MAX, MPLEX_VPANE_OPS_MAX, MPLEX_VPANE_WRITE_MAX } from '../policy.js';

/**
 * The longest request line the control socket accepts: 8 MiB. It must not
 * refuse a valid request, and the largest one (a vpane_write of 16 ops of
 * 65536 bytes, seed 001 section 3.1) is 1 MiB of data that JSON may write as
 * `\u00XX` escapes, 6 bytes each: about 6 MiB. See LARGEST_VALID_REQUEST.
 */
export const LINE_MAX_BYTES = 8 * 1_048_576;

/** An upper bound of the largest valid request line: every op's data escaped, plus the header and the other fields. */
export const LARGEST_VALID_REQUEST = MPLEX_VPANE_OPS_MAX * (MPLEX_VPANE_WRITE_MAX * 6 + MPLEX_VPANE_HEADER_MAX * 12 + 256) + 64;

/** One decoded line: a JSON value, or why the line was refused. */
export type DecodedLine =
  | { readonly ok: true; readonly value: unknown; /** The line as received, without its line end. */ readonly text: string }
  | { readonly ok: false; readonly error: string; readonly tooLong: boolean };

const NEWLINE = 0x0a;

/** Splits a byte stream into JSON values, one per line, holding at most `maxBytes` of a partial line. */
export class LineDecoder {
  private parts: Buffer[] = [];
  private size = 0;
  /** True while skipping the rest of a line that was too long. */
  private skipping = false;

  constructor(readonly maxBytes: number = LINE_MAX_BYTES) {}

  /** Bytes of an incomplete line held right now (never more than maxBytes). */
  get buffered(): number {
    return this.size;
  }

  /** Feeds bytes; returns the lines they completed, in order. */
  push(chunk: Uint8Array): DecodedLine[] {
    const out: DecodedLine[] = [];
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let start = 0;
    while (start < buf.length) {
      const nl = buf.indexOf(NEWLINE, start);
      const end = nl === -1 ? buf.length : nl;
      if (this.skipping) {
        if (nl !== -1) this.skipping = false;
      } else if (this.size + (end - start) > this.maxBytes) {
        this.parts = [];
        this.size = 0;
        this.skipping = nl === -1;
        out.push({ ok: false, error: `request line too long (limit ${this.maxBytes} bytes)`, tooLong: true });
      } else {
        if (end > start) {
          this.parts.push(buf.subarray(start, end));
          this.size += end - start;
        }
        if (nl !== -1) {
          const line = this.take();
          if (line !== undefined) out.push(decode(line));
        } else if (end > start) {
          // Keep a copy: the caller may reuse its chunk's memory.
          this.parts[this.parts.length - 1] = Buffer.from(buf.subarray(start, end));
        }
      }
      if (nl === -1) break;
      start = nl + 1;
    }
    return out;
  }

  /** The stream ended: a last line without a newline still counts. */
  end(): DecodedLine[] {
    if (this.skipping) {
      this.skipping = false;
      return [];
    }
    const line = this.take();
    return line === undefined ? [] : [decode(line)];
  }

  private take(): string | undefined {
    const text = Buffer.concat(this.parts, this.size).toString('utf8');
    this.parts = [];
    this.size = 0;
    const line = text.endsWith('\r') ? text.slice(0, -1) : text;
    return line.trim() === '' ? undefined : line;
  }
}

function decode(line: string): DecodedLine {
  try {
    return { ok: true, value: JSON.parse(line) as unknown, text: line };
  } catch (err) {
    return { ok: false, error: `malformed JSON: ${messageOf(err)}`, tooLong: false };
  }
}
