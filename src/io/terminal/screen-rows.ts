/**
 * An `@xterm/headless` buffer as plain rows: one SGR-coded string per visible row, exactly `cols` cells wide, so
 * React and Ink never see the terminal's objects (as Gemini CLI's serializer does). Colours keep their form; a wide
 * character's right half (width 0) is skipped. The output stage takes the same rows as cells (cells/screen-cells.ts,
 * whose conversions this file hands on), without the string round trip.
 */
import type xterm from '@xterm/headless';
import type { MouseEncoding } from '../../core/input/mouse.js';
import { cellSgr } from './cells/screen-cells.js';

export { cellSgr, cursorOf, lineToCells, screenCells, type CellStyle, type CursorSpot } from './cells/screen-cells.js';

type Terminal = InstanceType<typeof xterm.Terminal>;
type BufferCell = NonNullable<ReturnType<Terminal['buffer']['active']['getNullCell']>>;
type BufferLine = NonNullable<ReturnType<Terminal['buffer']['active']['getLine']>>;

/** One buffer line as an SGR-coded string of exactly `cols` cells. */
export function lineToSgr(line: BufferLine | undefined, cols: number, cell: BufferCell): string {
  if (!line) return ' '.repeat(cols);
  let out = '';
  let style = '';
  let used = 0;
  const end = Math.min(cols, line.length);
  for (let x = 0; x < end; x++) {
    const c = line.getCell(x, cell);
    if (!c) break;
    const width = c.getWidth();
    if (width === 0) continue; // the right half of a wide character
    if (used + width > cols) break;
    const sgr = cellSgr(c);
    if (sgr !== style) {
      out += sgr === '' ? '\x1b[0m' : `\x1b[0;${sgr}m`;
      style = sgr;
    }
    out += c.getChars() || ' ';
    used += width;
  }
  if (style !== '') out += '\x1b[0m';
  if (used < cols) out += ' '.repeat(cols - used);
  return out;
}

/**
 * The rows a pane shows: the bottom of the buffer, or `scrollback` lines
 * above it (clamped to what the buffer holds).
 */
export function screenRows(term: Terminal, scrollback = 0): string[] {
  const buf = term.buffer.active;
  const top = Math.max(0, buf.baseY - Math.max(0, scrollback));
  const cell = buf.getNullCell();
  const rows: string[] = [];
  for (let y = 0; y < term.rows; y++) rows.push(lineToSgr(buf.getLine(top + y), term.cols, cell));
  return rows;
}

/** Tracks `CSI ? 25 l/h` (hidden cursor), which xterm has no public flag for. */
export function trackCursorVisibility(term: Terminal): { readonly hidden: () => boolean } {
  let hidden = false;
  const watch = (final: 'h' | 'l') =>
    term.parser.registerCsiHandler({ prefix: '?', final }, (params) => {
      if (params.includes(25)) hidden = final === 'l';
      return false;
    });
  watch('h');
  watch('l');
  return { hidden: () => hidden };
}

/**
 * Which encoding a program asked its terminal to report the mouse in: SGR after DECSET 1006, else X10. xterm.js shows
 * the tracking mode but not the encoding, so it is watched as cursor visibility is: the handlers look, xterm goes on.
 */
export function trackMouseEncoding(term: Terminal): { readonly encoding: () => MouseEncoding } {
  let sgr = false;
  const watch = (final: 'h' | 'l') =>
    term.parser.registerCsiHandler({ prefix: '?', final }, (params) => {
      if (params.includes(1006)) sgr = final === 'h';
      return false;
    });
  watch('h');
  watch('l');
  term.parser.registerEscHandler({ final: 'c' }, () => {
    sgr = false; // RIS
    return false;
  });
  return { encoding: () => (sgr ? 'sgr' : 'x10') };
}
