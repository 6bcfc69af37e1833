/**
 * SGR codes for the header colours of src/core/panel/header.ts, written straight
 * into rows (chalk would drop them when stdout is not a terminal, and would
 * downsample truecolor when COLORTERM is unset).
 */
import type { HeaderColor } from './header.js';

/** The SGR foreground parameters of each header colour. */
export const HEADER_SGR: Readonly<Record<HeaderColor, string>> = {
  blue: '34',
  orange: '38;5;208',
  green: '32',
  red: '31',
  grey: '90',
  magenta: '1;35',
};

/** The separator lines' colour. */
export const SEPARATOR_SGR = '90';

/** The colour of the separator beside the focused main pane. */
export const FOCUS_SGR = '36';
