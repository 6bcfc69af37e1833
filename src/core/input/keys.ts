/**
 * The folder `src/core/input/`: the keyboard (this scanner, key-modes.ts, the panes' modes, the mention line). This file
 * scans raw stdin chunks (Ink's useInput loses keys) into Commands after the prefix and bytes for the focused pane (the
 * rest, unchanged); an escape sequence may be split across chunks. Paste mode has no commands; prompt and copy take every
 * key until the cockpit says they closed; a mouse report is cut out in every mode but paste and changes no mode.
 */
import { isSgrReport, parseSgrMouse, parseX10Mouse } from './mouse.js';
import { DEFAULT_PREFIX } from './key-table.js';
import { ESC, type KeyAction, type KeyOut, type Mode, modalKey, PASTE_END, PASTE_START } from './key-modes.js';

/** The key tables (key-table.ts; kept here for importers). */
export { COPY_KEYS, DEFAULT_PREFIX, LIST_KEYS, MENTION_KEYS, PREFIX_KEYS, SCROLL_LEAVE_KEYS, parsePrefix, prefixName } from './key-table.js';

/** The actions a chunk turns into (key-modes.ts; kept here for importers). */
export type { KeyAction } from './key-modes.js';

/**
 * How long the prefix waits for its key, as tmux's: then it lapses and the next key goes to the pane. The cockpit
 * keeps the timer; the scanner only hears that it ran out (prefixTimedOut).
 */
export const PREFIX_TIMEOUT_MS = 1_500;

/** Longest escape sequence the scanner waits for before giving up on it. */
export const KEY_SEQUENCE_MAX = 32;

/**
 * The length of the key at `i` in `s`: 1 for a plain character, the whole
 * sequence for CSI / SS3 / Alt+char, or 0 when the sequence is incomplete.
 */
export function keyLength(s: string, i: number): number {
  if (s[i] !== ESC) {
    const code = s.codePointAt(i) ?? 0;
    return code > 0xffff ? 2 : 1;
  }
  if (i + 1 >= s.length) return 0;
  const next = s[i + 1];
  if (next === '[') {
    for (let j = i + 2; j < s.length; j++) {
      const c = s.charCodeAt(j);
      if (c >= 0x40 && c <= 0x7e) return j - i + 1;
      if (j - i >= KEY_SEQUENCE_MAX) return j - i + 1;
    }
    return 0;
  }
  if (next === 'O') return i + 2 < s.length ? 3 : 0;
  return 2;
}

/** An incremental key scanner; one per cockpit. */
export class KeyScanner {
  private mode: Mode = 'normal';
  /** An incomplete escape sequence (or paste marker) waiting for the next chunk. */
  private carry = '';

  constructor(readonly prefix: string = DEFAULT_PREFIX) {}

  /** True while the next key would be read as a command. */
  get awaiting(): boolean {
    return this.mode === 'prefix';
  }

  /** The prefix waited PREFIX_TIMEOUT_MS for its key: it lapses. True when a prefix was pending. */
  prefixTimedOut(): boolean {
    if (this.mode !== 'prefix') return false;
    this.mode = 'normal';
    return true;
  }

  /** The overlay was closed by other means: keys pass again. */
  helpClosed(): void {
    if (this.mode === 'help') this.mode = 'normal';
  }

  /** True while the mention prompt has the keyboard. */
  get prompting(): boolean {
    return this.mode === 'prompt' || this.mode === 'prompt-paste';
  }

  /** The mention prompt closed (Enter started the agent, Esc, or by other means): keys pass again. */
  promptClosed(): void {
    if (this.prompting) this.mode = 'normal';
  }

  /**
   * The focused pane was scrolled back by other means (the wheel): the next
   * key returns it first, as after the prefix and PageUp; `back` false (it
   * reached the bottom again) ends that.
   */
  scrolledBack(back: boolean): void {
    if (back && this.mode === 'normal') this.mode = 'scroll';
    else if (!back && this.mode === 'scroll') this.mode = 'normal';
  }

  /** True while copy mode has the keyboard. */
  get copying(): boolean {
    return this.mode === 'copy';
  }

  /** Copy mode ended (q, Esc, a copy, or it could not start): keys pass again. */
  copyClosed(): void {
    if (this.mode === 'copy') this.mode = 'normal';
  }

  /**
   * Whether push(`chunk`) would give exactly one input action of it and
   * change nothing: normal mode, nothing carried, no prefix or escape in it
   * (most keys typed; the router then skips the scan).
   */
  passes(chunk: string): boolean {
    return this.mode === 'normal' && this.carry === '' && chunk !== '' && !chunk.includes(this.prefix) && !chunk.includes(ESC);
  }

  /** Scans one chunk of raw stdin. */
  push(chunk: string): KeyAction[] {
    const scan = new Scan(this.carry + chunk);
    this.carry = '';
    let i = 0;
    while (i < scan.s.length) i = this.step(scan, i);
    if (scan.input !== '') scan.out.push({ kind: 'input', data: scan.input });
    return scan.out;
  }

  /** Scans from `i` in the current mode; returns where to go on (the chunk's length to stop). */
  private step(scan: Scan, i: number): number {
    switch (this.mode) {
      case 'prompt-paste':
        return this.promptPaste(scan, i);
      case 'paste':
        return this.paste(scan, i);
      case 'normal':
        return this.normal(scan, i);
      default:
        return this.modal(scan, i);
    }
  }

  /** Inside a paste into the mention prompt: the pasted text, up to the paste's end, is one prompt key. */
  private promptPaste(scan: Scan, i: number): number {
    const { s } = scan;
    const end = s.indexOf(PASTE_END, i);
    if (end < 0) {
      const keep = partialSuffix(s, PASTE_END);
      if (s.length - keep > i) scan.action({ kind: 'prompt', key: s.slice(i, s.length - keep), paste: true });
      this.carry = s.slice(s.length - keep);
      return s.length;
    }
    if (end > i) scan.action({ kind: 'prompt', key: s.slice(i, end), paste: true });
    this.mode = 'prompt';
    return end + PASTE_END.length;
  }

  /** Inside a bracketed paste: everything up to and with the paste's end goes to the pane. */
  private paste(scan: Scan, i: number): number {
    const { s } = scan;
    const end = s.indexOf(PASTE_END, i);
    if (end < 0) {
      const keep = partialSuffix(s, PASTE_END);
      scan.input += s.slice(i, s.length - keep);
      this.carry = s.slice(s.length - keep);
      return s.length;
    }
    scan.input += s.slice(i, end + PASTE_END.length);
    this.mode = 'normal';
    return end + PASTE_END.length;
  }

  /** Normal mode: bytes pass to the pane up to the prefix, a mouse report or a paste's start. */
  private normal(scan: Scan, i: number): number {
    const { s } = scan;
    // Fast path: copy everything up to the next prefix or paste start.
    let j = i;
    while (j < s.length && s[j] !== this.prefix && s[j] !== ESC) j++;
    scan.input += s.slice(i, j);
    i = j;
    if (i >= s.length) return s.length;
    if (s[i] === this.prefix) {
      this.mode = 'prefix';
      return i + 1;
    }
    const len = keyLength(s, i);
    const mouse = len === 0 ? 0 : this.mouse(s, i, len, scan.action);
    if (mouse < 0) return s.length;
    if (mouse > 0) return i + mouse;
    if (len === 0) {
      // A lone ESC at the end of a chunk is a real Escape key: pass it now.
      if (s.length - i === 1 || s.length - i > KEY_SEQUENCE_MAX) {
        scan.input += s.slice(i);
      } else {
        this.carry = s.slice(i);
      }
      return s.length;
    }
    const key = s.slice(i, i + len);
    scan.input += key;
    if (key === PASTE_START) this.mode = 'paste';
    return i + len;
  }

  /** Prefix, scroll, help, prompt or copy mode: one whole key at a time. */
  private modal(scan: Scan, i: number): number {
    const { s } = scan;
    const len = keyLength(s, i);
    const mouse = len === 0 ? 0 : this.mouse(s, i, len, scan.action);
    if (mouse < 0) return s.length;
    if (mouse > 0) return i + mouse;
    if (len === 0) {
      if (s.length - i === 1) {
        // A lone ESC: a complete key in prefix mode, nothing to wait for.
        this.mode = modalKey(this.mode, ESC, this.prefix, scan);
        return i + 1;
      }
      this.carry = s.slice(i);
      return s.length;
    }
    this.mode = modalKey(this.mode, s.slice(i, i + len), this.prefix, scan);
    return i + len;
  }

  /**
   * A mouse report at `i` (whose CSI is `len` long): its length once handed
   * on, 0 when it is no report, -1 when an X10 report waits for its bytes.
   */
  private mouse(s: string, i: number, len: number, action: (a: KeyAction) => void): number {
    const key = s.slice(i, i + len);
    if (isSgrReport(key)) {
      const event = parseSgrMouse(key);
      if (event) action({ kind: 'mouse', event });
      return len; // a malformed report is dropped: it must not reach a pane as garbage
    }
    if (key !== '\x1b[M') return 0;
    if (s.length - i < 6) {
      this.carry = s.slice(i);
      return -1;
    }
    const event = parseX10Mouse(s.slice(i, i + 6));
    if (event) action({ kind: 'mouse', event });
    return 6;
  }
}

/** One chunk being scanned: the bytes for the pane gather in `input` until an action comes between them. */
class Scan implements KeyOut {
  readonly out: KeyAction[] = [];
  input = '';

  constructor(readonly s: string) {}

  readonly action = (a: KeyAction): void => {
    if (this.input !== '') this.out.push({ kind: 'input', data: this.input });
    this.input = '';
    this.out.push(a);
  };

  readonly pass = (data: string): void => {
    this.input += data;
  };
}

/** How many trailing characters of `s` could start `marker`. */
function partialSuffix(s: string, marker: string): number {
  for (let n = Math.min(marker.length - 1, s.length); n > 0; n--) {
    if (marker.startsWith(s.slice(s.length - n))) return n;
  }
  return 0;
}
