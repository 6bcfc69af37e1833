/** Fitting plain text into a number of cells, for header and help rows. */
import stringWidth from 'string-width';
import { clip } from '../src/core/wrap.js';

/** Widths of the non-ASCII characters seen, bounded (headers are redrawn every second). */
const widths = new Map<string, number>();
const WIDTHS_MAX = 4096;

/** The cells `text` takes, character by character (an upper bound for joined emoji sequences). */
function cells(text: string): number {
  let w = 0;
  for (const ch of text) {
    const c = ch.charCodeAt(0);
    if (c >= 0x20 && c < 0x7f) {
      w++;
      continue;
    }
    let cw = widths.get(ch);
    if (cw === undefined) {
      cw = stringWidth(ch);
      if (widths.size < WIDTHS_MAX) widths.set(ch, cw);
    }
    w += cw;
  }
  return w;
}

/** `text` clipped to `cols` cells and padded with spaces to exactly `cols`. */
export function fit(text: string, cols: number): string {
  const w = cells(text);
  if (w <= cols) return text + ' '.repeat(cols - w);
  const clipped = clip(text, cols);
  return clipped + ' '.repeat(Math.max(0, cols - stringWidth(clipped)));
}

/** `text` fitted to `cols` and wrapped in an SGR style. */
export function styled(text: string, cols: number, sgr: string): string {
  return sgr === '' ? fit(text, cols) : `\x1b[${sgr}m${fit(text, cols)}\x1b[0m`;
}
