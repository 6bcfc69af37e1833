/**
 * The rules the clamp (csi-clamp.ts) applies to one sequence: which counts are clamped to what, and the work it may
 * cost `@xterm/headless` on this screen. Read in xterm.js 6.0's InputHandler.ts: SU, SD, IL, DL, CHT and CBT loop on
 * their count, REP allocates count x the last cell's text; a count past the screen never shows more, so all are clamped.
 */

/** xterm's `Params` keeps at most 32 parameters and 32 sub-parameters. */
export const PARAMS_MAX = 32;

/** The work of a sequence that touches a few cells (SGR, a cursor move): ~250 ns, in units of ~50 ns. */
export const CSI_SEQUENCE_WORK = 5;

/** A CSI's parameters, prefix and intermediates as xterm's parser holds them. */
export interface HeldCsi {
  params: number[];
  /** Sub-parameters per parameter; -1 is an empty one. */
  subs: number[][];
  prefix: string;
  /** The last (at most four) intermediates: xterm keys its handlers by the last collected characters. */
  inter: string;
  entry: boolean;
  rejectDigits: boolean;
  rejectSub: boolean;
  digitIsSub: boolean;
  subCount: number;
}

/** Which dimension bounds the first parameter of a CSI without prefix, by final byte. */
const BY_COLS = new Set(['@', 'P', 'X', 'C', 'D', 'G', '`', 'a', 'I', 'Z']);
const BY_ROWS = new Set(['A', 'B', 'E', 'F', 'd', 'e', 'S', 'T', 'L', 'M']);
/** Scroll up/down and insert/delete lines: one line's work per step. */
const LINE_LOOPS = new Set(['S', 'T', 'L', 'M']);

/** The held CSI with its counts clamped for a screen of cols x rows; `tail` is the last cell's text length at most. */
export function clampCsi(h: HeldCsi, final: number, cols: number, rows: number, tail: number): HeldCsi {
  const f = String.fromCharCode(final);
  const params = h.params.slice();
  const clamp = (i: number, max: number): void => {
    if (i < params.length && params[i]! > max) params[i] = max;
  };
  if (h.prefix === '' && h.inter === '') {
    if (BY_COLS.has(f)) clamp(0, cols);
    else if (BY_ROWS.has(f)) clamp(0, rows);
    else if (f === 'H' || f === 'f') {
      clamp(0, rows);
      clamp(1, cols);
    } else if (f === 'r') {
      clamp(0, rows);
      clamp(1, rows);
    } else if (f === 'b') clamp(0, repeatMax(cols, rows, tail));
  } else if (h.prefix === '' && (h.inter === ' ' || h.inter === "'") && '@A}~'.includes(f)) {
    clamp(0, cols); // scroll left/right, insert/delete columns
  }
  return { ...h, params };
}

/**
 * The most repetitions REP may make: the screen's cells, and no more than
 * four cells' worth of text per cell (a cell stacked with joining marks must
 * not multiply them by the screen).
 */
export function repeatMax(cols: number, rows: number, tail: number): number {
  const cells = cols * rows;
  return Math.max(1, Math.min(cells, Math.floor((4 * cells) / Math.max(1, tail))));
}

/** The work a clamped CSI may cost xterm on this screen, in units of about one printed character. */
export function csiWork(h: HeldCsi, final: number, cols: number, rows: number, tail: number): number {
  const f = String.fromCharCode(final);
  const cells = cols * rows;
  const n = Math.max(1, h.params[0] ?? 0);
  if (h.inter !== '') return h.inter.endsWith(' ') || h.inter.endsWith("'") ? cells : CSI_SEQUENCE_WORK;
  if (h.prefix === '') {
    if (LINE_LOOPS.has(f)) return CSI_SEQUENCE_WORK + n * cols;
    if (f === 'b') return CSI_SEQUENCE_WORK + n * Math.max(1, tail);
    if (f === 'I' || f === 'Z' || f === 'K' || f === '@' || f === 'P' || f === 'X') return CSI_SEQUENCE_WORK + (cols >> 3);
  }
  // Erase in display, and private modes (the alternate screen is made and cleared whole).
  if (f === 'J' || (h.prefix === '?' && (f === 'h' || f === 'l'))) return cells;
  return CSI_SEQUENCE_WORK;
}

/** The work of an ESC sequence by its final byte; `hash` when its only intermediate was '#'. */
export function escWork(hash: boolean, final: number, cols: number, rows: number): number {
  const f = String.fromCharCode(final);
  if (hash && f === '8') return cols * rows; // DECALN fills the screen
  if (!hash && f === 'c') return 2 * cols * rows; // a full reset makes the buffers anew
  if (!hash && (f === 'D' || f === 'E' || f === 'M')) return cols; // index, next line, reverse index: a scroll
  return CSI_SEQUENCE_WORK;
}
