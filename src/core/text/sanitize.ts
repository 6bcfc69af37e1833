/**
 * The folder `src/core/text/`: agent text made safe and fitted (this sanitizer, wrap and widths, cells, secrets).
 * The sanitizer (docs/spec.md, "Formatter and sanitizing") lets only SGR, newline and tab through, so an agent cannot
 * move the cursor, retitle the terminal or write outside its pane. It follows the VT500 diagram to know where every
 * sequence ends, so the text after it survives; state held across chunks is bounded (SANITIZE_SEQUENCE_MAX).
 */
import { BEL, C1_CSI, C1_ST, CAN, DEL, ESC, SUB } from './control-codes.js';

/** A sequence that has not ended after this many characters is abandoned. */
export const SANITIZE_SEQUENCE_MAX = 4096;

/** An incremental sanitizer: feed it chunks, get back what is safe to show. */
export interface Sanitizer {
  /** Sanitizes one chunk; bytes are decoded as UTF-8, split characters and sequences are held. */
  push(chunk: string | Uint8Array): string;
  /** Flushes what is held (a split character becomes U+FFFD, an open string shows its text, any other open sequence is dropped) and resets. */
  end(): string;
}

const REPLACEMENT = '\uFFFD';

/** Which string is open: its header is not shown when it turns out unterminated. */
type StringKind = 'dcs' | 'osc' | 'other';

/** What an unterminated string showed: its text without the header (a DCS's parameters and final, an OSC's number). */
function unterminated(kind: StringKind, payload: string): string {
  const body = kind === 'dcs' ? payload.replace(/^[0-?]*[ -/]*[@-~]/, '') : kind === 'osc' ? payload.replace(/^[0-9]*;?/, '') : payload;
  return body === '' ? '' : sanitize(body);
}

/** Where the parser is; `text` is the ground state. */
type Mode = 'text' | 'esc' | 'esc_inter' | 'csi' | 'csi_ignore' | 'string';

function isC1(c: number): boolean {
  return c >= 0x80 && c <= 0x9f;
}

/** C1 introducers of strings: DCS, SOS, OSC, PM, APC. */
function isC1StringIntroducer(c: number): boolean {
  return c === 0x90 || c === 0x98 || c === 0x9d || c === 0x9e || c === 0x9f;
}

/** Characters that pass through unchanged in text (everything but controls and surrogates). */
function isPlain(c: number): boolean {
  return c >= 0x20 && c !== DEL && !isC1(c) && (c < 0xd800 || c > 0xdfff);
}

/**
 * Format characters that reorder or hide text (Trojan Source): bidi embeddings, overrides and isolates, the marks
 * U+200E, U+200F, U+061C, zero-width characters that join nothing visible and the deprecated format controls, shown
 * as `<U+202E>`. ZWNJ and ZWJ pass: emoji sequences and several scripts need them, and they move nothing.
 */
function isHiddenFormat(c: number): boolean {
  if (c < 0x61c) return false;
  return (
    c === 0x61c || c === 0x200b || c === 0x200e || c === 0x200f || (c >= 0x202a && c <= 0x202e) || (c >= 0x2060 && c <= 0x206f && c !== 0x2065) || c === 0xfeff
  );
}

/** A hidden format character made visible. */
function shownFormat(c: number): string {
  return `<U+${c.toString(16).toUpperCase().padStart(4, '0')}>`;
}

/** SGR parameters: digits, `;` and `:` only (no private markers). */
function isSgrParam(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x3b || c === 0x3a;
}

/** What a sanitizer lets through besides SGR, newline and tab. */
export interface SanitizerOptions {
  /**
   * A carriage return goes back to the start of the line, which cannot leave the pane, so progress lines (git, curl,
   * pip, npm) keep overwriting in place. An extension of docs/spec.md, "Formatter and sanitizing"; off by default.
   */
  readonly carriageReturn?: boolean;
}

class StreamSanitizer implements Sanitizer {
  readonly #keepCr: boolean;
  #mode: Mode = 'text';
  /** The CSI held so far while it may still be an SGR (7-bit introducer, SGR parameters only). */
  #csi = '';
  #sgr = false;
  /** Characters consumed by the current sequence, for the bound. */
  #seqLen = 0;
  #high = '';
  #decoder: TextDecoder | undefined;
  /** The payload of the open string (bounded by SANITIZE_SEQUENCE_MAX), shown if a newline comes before its end. */
  #str = '';
  #strKind: StringKind = 'other';

  constructor(options: SanitizerOptions = {}) {
    this.#keepCr = options.carriageReturn === true;
  }

  push(chunk: string | Uint8Array): string {
    if (typeof chunk === 'string') return this.#flushDecoder() + this.#scan(chunk);
    this.#decoder ??= new TextDecoder('utf-8');
    return this.#scan(this.#decoder.decode(chunk, { stream: true }));
  }

  end(): string {
    let out = this.#flushDecoder();
    // A string still open at the end ends there, as at a newline (a caller may hand over one line at a time).
    if (this.#mode === 'string') out += unterminated(this.#strKind, this.#str);
    if (this.#high !== '') out += REPLACEMENT;
    this.#high = '';
    this.#mode = 'text';
    this.#str = '';
    this.#csi = '';
    this.#sgr = false;
    this.#seqLen = 0;
    return out;
  }

  /** A string chunk after byte chunks ends the byte stream: its partial character becomes U+FFFD. */
  #flushDecoder(): string {
    if (this.#decoder === undefined) return '';
    const rest = this.#decoder.decode();
    this.#decoder = undefined;
    return rest === '' ? '' : this.#scan(rest);
  }

  #enter(mode: Mode, strKind: StringKind = 'other'): void {
    this.#mode = mode;
    this.#str = '';
    this.#strKind = strKind;
    this.#seqLen = 1;
    this.#csi = '';
    this.#sgr = false;
  }

  #scan(input: string): string {
    const s = this.#high + input;
    this.#high = '';
    const out: string[] = [];
    let run = -1;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (this.#mode === 'text') {
        // A line end or tab is kept as it is (#text would push it alone): it stays in the run.
        if ((isPlain(c) && !isHiddenFormat(c)) || c === 0x0a || c === 0x09 || (c === 0x0d && this.#keepCr)) {
          if (run < 0) run = i;
          continue;
        }
        if (c >= 0xd800 && c <= 0xdbff) {
          const next = i + 1 < s.length ? s.charCodeAt(i + 1) : -1;
          if (next >= 0xdc00 && next <= 0xdfff) {
            if (run < 0) run = i;
            i++;
            continue;
          }
          if (run >= 0) out.push(s.slice(run, i));
          run = -1;
          // A high surrogate at the end of a chunk may be completed by the next one.
          if (next < 0) this.#high = s[i] ?? '';
          else out.push(REPLACEMENT);
          continue;
        }
        if (run >= 0) out.push(s.slice(run, i));
        run = -1;
        this.#text(c, out);
        continue;
      }
      this.#seqLen++;
      if (this.#seqLen > SANITIZE_SEQUENCE_MAX) {
        // Abandon the sequence and read this character as text again.
        this.#mode = 'text';
        this.#csi = '';
        i--;
        continue;
      }
      if (this.#sequence(c, out)) i--;
    }
    if (run >= 0) {
      // Clean text (most of a token stream) goes out as it came, with no copy.
      if (run === 0 && out.length === 0) return s;
      out.push(s.slice(run));
    }
    return out.join('');
  }

  /** A control, lone surrogate or hidden format character in text. */
  #text(c: number, out: string[]): void {
    if (isHiddenFormat(c)) out.push(shownFormat(c));
    else if (c === 0x0a || c === 0x09 || (c === 0x0d && this.#keepCr)) out.push(String.fromCharCode(c));
    else if (c === ESC) this.#enter('esc');
    else if (c === C1_CSI) this.#enter('csi');
    else if (isC1StringIntroducer(c)) this.#enter('string', c === 0x90 ? 'dcs' : c === 0x9d ? 'osc' : 'other');
    else if (c >= 0xdc00 && c <= 0xdfff) out.push(REPLACEMENT);
    // Every other C0 control, DEL and C1 control is dropped.
  }

  /** One character inside a sequence; returns true when it must be read again as text. */
  #sequence(c: number, out: string[]): boolean {
    if (c === CAN || c === SUB) {
      this.#mode = 'text';
      return false;
    }
    if (c === ESC) {
      // ESC aborts any sequence and starts the next (in a string, ESC \ is the terminator).
      this.#enter('esc');
      return false;
    }
    switch (this.#mode) {
      case 'esc':
        return this.#afterEsc(c);
      case 'esc_inter':
        if (c >= 0x20 && c <= 0x2f) return false;
        this.#mode = 'text';
        // A final byte ends the sequence; anything else ends it and is read as text.
        return !(c >= 0x30 && c <= 0x7e);
      case 'csi':
        return this.#inCsi(c, out);
      case 'csi_ignore':
        if (isC1(c)) {
          this.#mode = 'text';
          return true;
        }
        if (c >= 0x40 && c <= 0x7e) this.#mode = 'text';
        return false;
      case 'string':
        if (c === BEL || c === C1_ST) this.#mode = 'text';
        else if (c === 0x0a) {
          // Not terminated by the end of its line: it was never a string, and hides nothing: its text is shown.
          this.#mode = 'text';
          out.push(unterminated(this.#strKind, this.#str));
          return true;
        } else if (c >= 0x20 && c !== DEL && !isC1(c)) this.#str += String.fromCharCode(c);
        return false;
      case 'text':
        return true;
    }
  }

  #afterEsc(c: number): boolean {
    if (c === 0x5b) {
      this.#mode = 'csi';
      this.#csi = '\x1b[';
      this.#sgr = true;
      return false;
    }
    // OSC, DCS, SOS, PM, APC
    if (c === 0x5d || c === 0x50 || c === 0x58 || c === 0x5e || c === 0x5f) {
      this.#mode = 'string';
      this.#str = '';
      this.#strKind = c === 0x50 ? 'dcs' : c === 0x5d ? 'osc' : 'other';
      return false;
    }
    if (c >= 0x20 && c <= 0x2f) {
      this.#mode = 'esc_inter';
      return false;
    }
    this.#mode = 'text';
    // ESC + final byte (ESC 7, ESC c, ESC \ ...) is a whole two-byte sequence;
    // after anything else the lone ESC is dropped and the character kept.
    return !(c >= 0x30 && c <= 0x7e);
  }

  #inCsi(c: number, out: string[]): boolean {
    if (c >= 0x30 && c <= 0x3f) {
      if (this.#sgr && isSgrParam(c)) this.#csi += String.fromCharCode(c);
      else this.#sgr = false;
      return false;
    }
    if (c >= 0x20 && c <= 0x2f) {
      this.#sgr = false;
      return false;
    }
    if (c >= 0x40 && c <= 0x7e) {
      if (this.#sgr && c === 0x6d) out.push(this.#csi + 'm');
      this.#mode = 'text';
      this.#csi = '';
      return false;
    }
    if (isC1(c)) {
      this.#mode = 'text';
      this.#csi = '';
      return true;
    }
    if (c < 0x20 || c === DEL) return false;
    // A printable non-ASCII character makes the CSI malformed: skip to its final byte.
    this.#mode = 'csi_ignore';
    this.#csi = '';
    return false;
  }
}

/** Creates an incremental sanitizer for one stream (one per agent text stream). */
export function createSanitizer(options: SanitizerOptions = {}): Sanitizer {
  return new StreamSanitizer(options);
}

/** Sanitizes a whole text at once. */
export function sanitize(text: string): string {
  const s = createSanitizer();
  return s.push(text) + s.end();
}

const SGR_GLOBAL = /\x1b\[[0-9;:]*m/g;

/** Removes SGR sequences from sanitized text (our own colours apply to structural lines). */
export function stripSgr(text: string): string {
  return text.includes('\x1b') ? text.replace(SGR_GLOBAL, '') : text;
}

/** Text that sanitizeLine gives back unchanged: no controls, DEL, C1, surrogates (a pair takes the walk) or hidden format characters. */
const PLAIN_LINE = /^[\x20-\x7e\xa0-\u061b\u061d-\u200a\u200c\u200d\u2010-\u2029\u202f-\u205f\u2070-\ud7ff\ue000-\ufefe\uff00-\uffff]*$/;

/** Agent text for a one-line field: sanitized, without SGR, line breaks and tabs folded to one space. */
export function sanitizeLine(text: string): string {
  if (PLAIN_LINE.test(text)) return text; // a label or a tag, every second in a header: nothing to take out
  return stripSgr(sanitize(text)).replace(/[ ]*[\n\t][\n\t ]*/g, ' ');
}
