/** Fitting plain text into a number of cells, for header and help rows. */
import { clip, textWidth } from './wrap.js';

/** `text` clipped to `cols` cells and padded with spaces to exactly `cols`. */
export function fit(text: string, cols: number): string {
  const w = textWidth(text);
  if (w <= cols) return text + ' '.repeat(cols - w);
  const clipped = clip(text, cols);
  return clipped + ' '.repeat(Math.max(0, cols - textWidth(clipped)));
}

/** `text` fitted to `cols` and wrapped in an SGR style. */
export function styled(text: string, cols: number, sgr: string): string {
  return sgr === '' ? fit(text, cols) : `\x1b[${sgr}m${fit(text, cols)}\x1b[0m`;
}
