/**
 * A panel's pending output: bytes formatted but not yet in its screen, appended without waiting, drained at most
 * ORCH_WRITE_MAX bytes a flush. When the screen falls behind the oldest output is dropped at a line end and one line says
 * so (docs/spec.md, "Panel state machine"). Sizes are UTF-8 bytes; a drain never splits a character.
 */
import { ORCH_PENDING_MAX, ORCH_WRITE_MAX } from '../policy.js';

/** The line that replaces dropped output. */
export const SKIPPED_LINE = '\x1b[0;2m… output skipped: the screen fell behind\x1b[0m\r\n';

/** UTF-8 length of a string, counted without allocating. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * The index in `text` just after the longest prefix of at most `maxBytes`
 * UTF-8 bytes that does not end inside a surrogate pair.
 */
export function prefixIndex(text: string, maxBytes: number): number {
  let bytes = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    let width: number;
    let units = 1;
    if (c < 0x80) width = 1;
    else if (c < 0x800) width = 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && isLow(text.charCodeAt(i + 1))) {
      width = 4;
      units = 2;
    } else width = 3;
    if (bytes + width > maxBytes) break;
    bytes += width;
    i += units;
  }
  return i;
}

function isLow(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

/** A bounded buffer of output waiting for its screen. */
export class PendingOutput {
  private text = '';
  private bytes = 0;
  private droppedBytes = 0;

  constructor(
    private readonly cap: number = ORCH_PENDING_MAX,
    private readonly writeMax: number = ORCH_WRITE_MAX,
  ) {}

  /** Bytes waiting. */
  get size(): number {
    return this.bytes;
  }

  /** Bytes dropped so far because the screen fell behind. */
  get dropped(): number {
    return this.droppedBytes;
  }

  /** Appends output; over the cap the oldest lines go and a marker line says so. */
  append(data: string): void {
    if (data === '') return;
    this.text += data;
    this.bytes += utf8Length(data);
    if (this.bytes > this.cap) this.shed();
  }

  /** Takes at most writeMax bytes from the front, never splitting a character. */
  take(): string {
    if (this.bytes === 0) return '';
    if (this.bytes <= this.writeMax) {
      const all = this.text;
      this.text = '';
      this.bytes = 0;
      return all;
    }
    const end = Math.max(1, prefixIndex(this.text, this.writeMax));
    const chunk = this.text.slice(0, end);
    this.text = this.text.slice(end);
    this.bytes -= utf8Length(chunk);
    return chunk;
  }

  /** Forgets everything waiting (the panel left the screen). */
  clear(): void {
    this.text = '';
    this.bytes = 0;
  }

  private shed(): void {
    const body = this.text.startsWith(SKIPPED_LINE) ? this.text.slice(SKIPPED_LINE.length) : this.text;
    const bodyBytes = this.bytes - (body === this.text ? 0 : utf8Length(SKIPPED_LINE));
    // Shed down to three quarters of the cap, not just under it, so that a
    // flooding producer pays for one scan per quarter of the buffer, not per append.
    const excess = bodyBytes - (Math.floor((this.cap * 3) / 4) - utf8Length(SKIPPED_LINE));
    let cut = prefixIndex(body, excess);
    if (utf8Length(body.slice(0, cut)) < excess && cut < body.length) cut = nextCodePoint(body, cut);
    // On to the next line end, so the screen never receives half a line.
    const lineEnd = body.indexOf('\n', cut > 0 ? cut - 1 : 0);
    if (lineEnd >= 0) cut = lineEnd + 1;
    const kept = body.slice(cut);
    const keptBytes = utf8Length(kept);
    this.droppedBytes += bodyBytes - keptBytes;
    this.text = SKIPPED_LINE + kept;
    this.bytes = utf8Length(SKIPPED_LINE) + keptBytes;
  }
}

function nextCodePoint(text: string, i: number): number {
  return isHigh(text.charCodeAt(i)) && i + 1 < text.length && isLow(text.charCodeAt(i + 1)) ? i + 2 : i + 1;
}

function isHigh(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}
