/**
 * tai's own colours as SGR codes written straight into rows (chalk drops them when stdout is no terminal and
 * downsamples truecolor without COLORTERM): headers, separators, status line, mention line, agent list. NO_COLOR's
 * palette uses only bold and inverse so focus and state stay visible; colours agents and programs write pass unchanged.
 */
import type { HeaderColor } from './header.js';
import { stateColor } from './header.js';
import type { PanelState } from './panel-state.js';

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

/** The SGR parameters of everything tai colours itself. */
export interface Palette {
  /** A panel's header row in its state, inverted when focused. */
  header(state: PanelState, focused: boolean): string;
  /** The `+N hidden` note and the status line's counts. */
  readonly note: string;
  readonly separator: string;
  /** The separator beside the focused main pane. */
  readonly focusSeparator: string;
  /** The status line (one row at the bottom). */
  readonly status: string;
  /** The status line's sign while the prefix waits for its key. */
  readonly pending: string;
  /** The mention line's label, its notes and its errors. */
  readonly label: string;
  readonly hint: string;
  readonly error: string;
}

/** The coloured palette. */
export const COLOR_PALETTE: Palette = {
  header: (state, focused) => `1;${HEADER_SGR[stateColor(state)]}${focused ? ';7' : ''}`,
  note: `7;${SEPARATOR_SGR}`,
  separator: SEPARATOR_SGR,
  focusSeparator: FOCUS_SGR,
  status: '7;90',
  pending: '1;7;33',
  label: '1;36',
  hint: '90',
  error: '31',
};

/** NO_COLOR: bold and inverse only; the focused header is inverted, the focused main pane's separator bold. */
export const PLAIN_PALETTE: Palette = {
  header: (_state, focused) => (focused ? '1;7' : '1'),
  note: '7',
  separator: '',
  focusSeparator: '1',
  status: '7',
  pending: '1',
  label: '1',
  hint: '',
  error: '1',
};

/** The palette for a cockpit with or without colour. */
export function paletteOf(noColor: boolean): Palette {
  return noColor ? PLAIN_PALETTE : COLOR_PALETTE;
}

/** NO_COLOR's rule: set to anything but the empty string. */
export function wantsNoColor(env: Readonly<Record<string, string | undefined>>): boolean {
  return (env.NO_COLOR ?? '') !== '';
}
