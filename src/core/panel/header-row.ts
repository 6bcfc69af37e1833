/**
 * Row 0 of a panel as one SGR-coded string: the header of docs/spec.md, "Panel state machine" in its state's colour,
 * inverted when focused (NO_COLOR: bold, inverted when focused). Pure text, so components and the output stage draw
 * the same row.
 */
import { COLOR_PALETTE, type Palette } from './colors.js';
import type { PanelState } from './panel-state.js';
import { styled } from '../text/fit.js';

/** What a header row shows of a panel. */
export interface HeaderView {
  readonly header: string;
  readonly state: PanelState;
}

/** The plain text a header row shows before its `+N hidden` note: the header, and how far the view is scrolled back. */
export function headerLine(header: string, scrollback: number): string {
  return scrollback > 0 ? `${header} · ↑${scrollback}` : header;
}

/** The SGR-coded header row of a panel, with `+N hidden` at its right end when agents run with no panel. */
export function headerRow(view: HeaderView, cols: number, focused: boolean, scrollback = 0, hidden = 0, palette: Palette = COLOR_PALETTE): string {
  const sgr = palette.header(view.state, focused);
  const text = headerLine(view.header, scrollback);
  const note = noteOf(hidden);
  if (note === '' || note.length >= cols) return styled(text, cols, sgr);
  return styled(text, cols - note.length, sgr) + styled(note, note.length, palette.note);
}

/** The columns of a `cols`-wide header row its text may take (headerLine): all but those of the `+N hidden` note. */
export function headerRoom(cols: number, hidden: number): number {
  const note = noteOf(hidden).length;
  return note === 0 || note >= cols ? cols : cols - note;
}

function noteOf(hidden: number): string {
  return hidden > 0 ? ` +${hidden} hidden ` : '';
}
