/**
 * Hostile escape sequences made harmless before a screen parses them (docs/security.md, "Hostile escape sequences"):
 * in one pass every count is clamped to what the screen can show, and the output is cut into slices of at most
 * CLAMP_SLICE_WORK to be written one by one, as xterm's write buffer yields only between writes. It follows xterm's
 * parser modes so `tail` (the last cell's text, which REP copies) stays an upper bound; a CSI is held as xterm's `Params`.
 */
import { clampCsi, CSI_SEQUENCE_WORK, csiWork, escWork, type HeldCsi, PARAMS_MAX } from './csi-rules.js';
import { BEL, C1_CSI, C1_ST, CAN, DEL, ESC, SUB } from './control-codes.js';

/** The estimated work one slice may carry: a few milliseconds of parse, so keys and the watchdog wait little. */
export const CLAMP_SLICE_WORK = 100_000;


type Mode = 'text' | 'esc' | 'esc_inter' | 'csi' | 'csi_ignore' | 'osc' | 'str';

/** Whether xterm executes (or, DEL, ignores) this code in place inside an escape or a CSI. */
function isInline(c: number): boolean {
  return (c < 0x20 && c !== CAN && c !== SUB && c !== ESC) || c === DEL;
}

/** Whether a code point has width 0 in xterm's Unicode 6 table and so joins the cell before it (a superset). */
function joins(cp: number): boolean {
  if (cp < 0x300) return false;
  if ((cp >= 0x3400 && cp <= 0x9fff) || (cp >= 0xac00 && cp <= 0xd7a3)) return false;
  if (cp === 0x6de || (cp >= 0x1160 && cp <= 0x11ff)) return true; // width 0 in the table, letters in Unicode
  return /[\p{M}\p{Cf}]/u.test(String.fromCodePoint(cp));
}

/** An incremental clamp for one screen: feed it chunks, write the slices it returns in order. */
export class CsiClamp {
  private cols: number;
  private rows: number;
  private mode: Mode = 'text';
  private held: HeldCsi = emptyHeld();
  private escHash = false;
  private tail = 0;
  private tailBeforeHigh = 0;
  private high = 0;
  private slices: string[] = [];
  private piece: string[] = [];
  private work = 0;
  private chunk = '';
  private from = 0;

  /**
   * `endStringsAtNewline`: an OSC or DCS still open at a newline is ended there (CAN before it), so an unterminated one
   * cannot hide the rest; for every screen but the main pane's, which shows its program as a terminal would.
   */
  constructor(
    cols: number,
    rows: number,
    private readonly endStringsAtNewline = false,
  ) {
    this.cols = Math.max(1, cols);
    this.rows = Math.max(1, rows);
  }

  /** Follows the screen's size: counts are clamped to the newest one. */
  resize(cols: number, rows: number): void {
    this.cols = Math.max(1, cols);
    this.rows = Math.max(1, rows);
  }

  /** Whether no sequence is begun: what comes next is read as text (at xterm's ground state, when all was parsed). */
  ground(): boolean {
    return this.mode === 'text';
  }

  /** The chunk made safe, in slices of bounded work; a sequence split across chunks is completed by the next. */
  push(chunk: string): string[] {
    this.chunk = chunk;
    this.from = 0;
    for (let i = 0; i < chunk.length; i++) {
      if (this.mode === 'text') {
        i = this.textRun(chunk, i);
        if (i >= chunk.length) break;
      }
      this.step(chunk.charCodeAt(i), i);
    }
    this.take(chunk.length);
    this.chunk = '';
    this.flushPiece();
    const out = this.slices;
    this.slices = [];
    return out;
  }

  /**
   * Plain text from `i` on (ASCII and C0 but ESC, CAN and SUB), accounted at once as `step` would code by code: a
   * flood of lines is most of what a pane parses. Stops at another code or where the slice is full; returns where.
   */
  private textRun(chunk: string, i: number): number {
    const tab = 1 + (this.cols >> 4);
    let work = this.work;
    let last = -1;
    let j = i;
    for (; j < chunk.length; j++) {
      const c = chunk.charCodeAt(j);
      if (c >= DEL || c === ESC || c === CAN || c === SUB) break;
      const w = c >= 0x20 ? 1 : c === 0x0a || c === 0x0b || c === 0x0c ? 5 : c === 0x09 ? tab : 1;
      if (work + w > CLAMP_SLICE_WORK && work > 0) break;
      work += w;
      last = c;
    }
    if (last >= 0) {
      this.work = work;
      this.tail = last >= 0x20 ? 1 : 0; // a printed ASCII character joins nothing; a control resets the join state
      this.high = 0;
    }
    return j;
  }

  private step(c: number, i: number): void {
    if (c === ESC || c === CAN || c === SUB || (c >= 0x80 && c <= 0x9f)) {
      this.anywhere(c, i);
      return;
    }
    if (c === 0x0a && this.endStringsAtNewline && (this.mode === 'osc' || this.mode === 'str')) {
      this.take(i);
      this.piece.push(String.fromCharCode(CAN)); // xterm ends the string at CAN; the newline then acts as one
      this.mode = 'text';
    }
    switch (this.mode) {
      case 'text':
        this.charge(i, c === 0x0a || c === 0x0b || c === 0x0c ? 5 : c === 0x09 ? 1 + (this.cols >> 4) : 1);
        this.trackTail(c);
        return;
      case 'osc':
        this.charge(i, 1);
        if (c === BEL) this.mode = 'text';
        return;
      case 'str':
        this.charge(i, 1);
        return;
      case 'esc':
      case 'esc_inter':
        this.inEscape(c, i);
        return;
      case 'csi':
        this.inCsi(c, i);
        return;
      case 'csi_ignore':
        this.charge(i, 1);
        if (c >= 0x40 && c <= 0x7e) this.mode = 'text';
        return;
    }
  }

  /** ESC, CAN, SUB and the C1 controls act the same from every state (xterm's "anywhere" transitions). */
  private anywhere(c: number, i: number): void {
    this.charge(i, c === 0x84 || c === 0x85 || c === 0x8d ? this.cols : 1);
    this.high = 0;
    if (c === ESC) this.mode = 'esc';
    else if (c === C1_CSI) this.startCsi();
    else if (c === 0x9d) this.mode = 'osc';
    else if (c === 0x90 || c === 0x98 || c === 0x9e || c === 0x9f) this.mode = 'str';
    else {
      // CAN, SUB and the other C1 controls are executed (the join state is reset); ST is ignored.
      if (c !== C1_ST) this.tail = 0;
      this.mode = 'text';
    }
  }

  private inEscape(c: number, i: number): void {
    this.charge(i, 1);
    if (isInline(c)) return;
    if (this.mode === 'esc') {
      if (c === 0x5b) return this.startCsi();
      if (c === 0x5d) return void (this.mode = 'osc');
      if (c === 0x50 || c === 0x58 || c === 0x5e || c === 0x5f) return void (this.mode = 'str');
      this.escHash = c === 0x23;
    } else if (c >= 0x20 && c <= 0x2f) {
      this.escHash = false; // more than one intermediate: no handler fills the screen
    }
    if (c >= 0x20 && c <= 0x2f) return void (this.mode = 'esc_inter');
    if (c >= 0x30 && c <= 0x7e) {
      this.cut(escWork(this.mode === 'esc_inter' && this.escHash, c, this.cols, this.rows), i);
      this.tail = 0;
    }
    this.mode = 'text'; // dispatched, or an error that swallows the code
  }

  private startCsi(): void {
    this.mode = 'csi';
    this.held = emptyHeld();
  }

  private inCsi(c: number, i: number): void {
    if (isInline(c)) return this.charge(i, 1); // passes through where it stands: executed before the dispatch, as xterm does
    const h = this.held;
    if (c >= 0x40 && c <= 0x7e) {
      const safe = clampCsi(h, c, this.cols, this.rows, this.tail);
      this.take(i);
      this.cut(csiWork(safe, c, this.cols, this.rows, this.tail), i);
      this.piece.push(serialize(safe) + String.fromCharCode(c));
      this.from = i + 1;
      this.tail = 0;
      this.mode = 'text';
      return;
    }
    if (c >= 0xa0) {
      this.mode = 'text'; // xterm's parse error: the sequence and this code are dropped
      return this.charge(i, 1);
    }
    this.take(i);
    this.from = i + 1; // held, re-emitted at the final byte
    if (c >= 0x30 && c <= 0x3b && h.inter === '') addParamCode(h, c);
    else if (c >= 0x3c && c <= 0x3f && h.entry) {
      h.prefix = String.fromCharCode(c);
      h.entry = false;
    } else if (c >= 0x20 && c <= 0x2f) {
      h.inter = (h.inter + String.fromCharCode(c)).slice(-4);
      h.entry = false;
    } else {
      // A parameter after an intermediate, a prefix after a parameter: xterm ignores the sequence; so must it.
      this.piece.push('0<');
      this.mode = 'csi_ignore';
    }
  }

  private trackTail(c: number): void {
    if (c < 0x20) {
      this.tail = 0; // executed: xterm resets the join state
      this.high = 0;
    } else if (c === DEL) {
      // an error in text: nothing printed, nothing reset
    } else if (c >= 0xd800 && c <= 0xdbff) {
      this.tailBeforeHigh = this.tail;
      this.high = c;
      this.tail += 2; // until its low half says whether it joins
    } else if (c >= 0xdc00 && c <= 0xdfff) {
      const cp = this.high === 0 ? c : 0x10000 + ((this.high - 0xd800) << 10) + (c - 0xdc00);
      this.tail = this.high !== 0 && !joins(cp) ? 2 : this.tailBeforeHigh + 2;
      this.high = 0;
    } else {
      this.tail = joins(c) ? this.tail + 1 : 1;
      this.high = 0;
    }
  }

  /** Accounts a code that passes through; a slice is cut before it when it would not fit. */
  private charge(i: number, work: number): void {
    if (this.work + work > CLAMP_SLICE_WORK && this.work > 0) {
      this.take(i);
      this.flushPiece();
      this.work = 0;
    }
    this.work += work;
  }

  /** Accounts a dispatch at `i`, whose bytes are already in the piece or about to be. */
  private cut(work: number, i: number): void {
    if (this.work + work > CLAMP_SLICE_WORK && this.work > 0) {
      this.take(i);
      this.flushPiece();
      this.work = 0;
    }
    this.work += work;
  }

  /** Moves the pass-through run before `i` into the current piece. */
  private take(i: number): void {
    if (i > this.from) this.piece.push(this.chunk.slice(this.from, i));
    this.from = i;
  }

  private flushPiece(): void {
    if (this.piece.length > 0) this.slices.push(this.piece.join(''));
    this.piece = [];
  }
}

function emptyHeld(): HeldCsi {
  return { params: [0], subs: [[]], prefix: '', inter: '', entry: true, rejectDigits: false, rejectSub: false, digitIsSub: false, subCount: 0 };
}

/** One parameter code (digit, ':' or ';') taken the way xterm's `Params` takes it, within its limits. */
function addParamCode(h: HeldCsi, c: number): void {
  h.entry = false;
  if (c === 0x3b) {
    h.digitIsSub = false;
    if (h.params.length >= PARAMS_MAX) h.rejectDigits = true;
    else {
      h.params.push(0);
      h.subs.push([]);
    }
  } else if (c === 0x3a) {
    h.digitIsSub = true;
    if (h.rejectDigits || h.subCount >= PARAMS_MAX) h.rejectSub = true;
    else {
      h.subs[h.subs.length - 1]!.push(-1);
      h.subCount++;
    }
  } else if (!h.rejectDigits && !(h.digitIsSub && h.rejectSub)) {
    const d = c - 0x30;
    const store = h.digitIsSub ? h.subs[h.subs.length - 1]! : h.params;
    const cur = store[store.length - 1]!;
    store[store.length - 1] = cur === -1 ? d : Math.min(cur * 10 + d, 0x7fffffff);
  }
}

/** The held part of a CSI as xterm will read it back: prefix, parameters (0 as empty; -1 sub-parameters empty), intermediates. */
function serialize(h: HeldCsi): string {
  let params = '';
  for (let i = 0; i < h.params.length; i++) {
    if (i > 0) params += ';';
    const p = h.params[i]!;
    if (p !== 0) params += String(p);
    for (const s of h.subs[i]!) params += s === -1 ? ':' : ':' + String(s);
  }
  return h.prefix + params + h.inter;
}

export { CSI_SEQUENCE_WORK };
