/**
 * The mouse: the outer terminal's SGR reports (DECSET 1006, asked with 1000/1002 as tmux's `mouse on`) and the legacy
 * X10 form (a terminal without 1006; each value plus 32 in one character) parsed into events, and events encoded again
 * for a pane's program that asked for the mouse, in its coordinates and encoding. Buttons: 0-2, 3 none, 64/65 the
 * wheel, +4 Shift, +8 Alt, +16 Ctrl, +32 motion; tracking is xterm.js's `mouseTrackingMode`.
 */

/** One mouse event, at a cell counted from 0 from the top left. */
export interface MouseEvent {
  /** The button code without the modifier and motion bits (0-3, 64-67, 128-131). */
  readonly button: number;
  readonly x: number;
  readonly y: number;
  readonly release: boolean;
  readonly motion: boolean;
  /** The modifier bits as the terminal sent them (4 Shift, 8 Alt, 16 Ctrl). */
  readonly modifiers: number;
}

/** What a program in a pane asked for (xterm.js `term.modes.mouseTrackingMode`). */
export type MouseTracking = 'none' | 'x10' | 'vt200' | 'drag' | 'any';

/** How a program wants its reports: SGR (DECSET 1006) or the default X10 bytes. */
export type MouseEncoding = 'sgr' | 'x10';

/** Lines the wheel scrolls a pane by, per notch (tmux's copy mode scrolls 5; xterm 3 or 5). */
export const WHEEL_LINES = 3;

const SGR = /^\x1b\[<(\d{1,4});(\d{1,5});(\d{1,5})([Mm])$/;
const MODIFIER_BITS = 4 | 8 | 16;

/** True for a key (as the scanner cut it) that opens an SGR report. */
export function isSgrReport(key: string): boolean {
  return key.startsWith('\x1b[<') && (key.endsWith('M') || key.endsWith('m'));
}

/** Parses one SGR report; undefined when it is not a well-formed one. */
export function parseSgrMouse(key: string): MouseEvent | undefined {
  const m = SGR.exec(key);
  if (!m) return undefined;
  const code = Number(m[1]);
  return eventOf(code, Number(m[2]) - 1, Number(m[3]) - 1, m[4] === 'm');
}

/** Parses one X10 report (`ESC [ M` and three characters); a release has button 3 and no button to tell. */
export function parseX10Mouse(key: string): MouseEvent | undefined {
  if (key.length !== 6 || !key.startsWith('\x1b[M')) return undefined;
  const [b, x, y] = [key.charCodeAt(3) - 32, key.charCodeAt(4) - 33, key.charCodeAt(5) - 33];
  if (b < 0 || x < 0 || y < 0) return undefined;
  return eventOf(b, x, y, (b & 3) === 3 && (b & 32) === 0);
}

function eventOf(code: number, x: number, y: number, release: boolean): MouseEvent {
  return { button: code & ~(MODIFIER_BITS | 32), x: Math.max(0, x), y: Math.max(0, y), release, motion: (code & 32) !== 0, modifiers: code & MODIFIER_BITS };
}

/** True for a notch of the wheel (up: 64, down: 65). */
export function isWheel(e: MouseEvent): boolean {
  return e.button === 64 || e.button === 65;
}

/** True for a button pressed (not the wheel, not motion, not a release). */
export function isPress(e: MouseEvent): boolean {
  return !e.release && !e.motion && !isWheel(e);
}

/** Whether a program tracking the mouse in `tracking` wants this event reported at all. */
export function wanted(e: MouseEvent, tracking: MouseTracking): boolean {
  switch (tracking) {
    case 'none':
      return false;
    case 'x10':
      return isPress(e) || (isWheel(e) && !e.release);
    case 'vt200':
      return !e.motion;
    case 'drag':
      return !e.motion || (e.button & 3) !== 3;
    case 'any':
      return true;
  }
}

/**
 * The report of `e` for a program in a pane whose top left cell is
 * (`left`, `top`), or '' when its tracking does not want it. X10 cannot say
 * coordinates past 223, nor which button was released (it sends 3).
 */
export function encodeMouse(e: MouseEvent, left: number, top: number, tracking: MouseTracking, encoding: MouseEncoding): string {
  if (!wanted(e, tracking)) return '';
  const x = e.x - left + 1;
  const y = e.y - top + 1;
  const modifiers = tracking === 'x10' ? 0 : e.modifiers;
  const code = e.button | modifiers | (e.motion ? 32 : 0);
  if (encoding === 'sgr') return `\x1b[<${code};${x};${y}${e.release ? 'm' : 'M'}`;
  if (x > 223 || y > 223) return '';
  const b = e.release && !isWheel(e) ? 3 | modifiers : code;
  return `\x1b[M${String.fromCharCode(b + 32, x + 32, y + 32)}`;
}
