/**
 * Row 0 of a panel: the header text of seed 001 section 4.2 in the colour of
 * the panel's state (running blue, idle and timeout orange, done green,
 * failed red, cancelled grey); the focused panel's header is inverted.
 */
import React from 'react';
import { stateColor } from '../src/core/header.js';
import type { PanelView } from '../store/board.js';
import { HEADER_SGR, SEPARATOR_SGR } from './colors.js';
import { styled } from './fit.js';
import { RawRows } from './RawRows.js';

/** Props: the panel, its width, whether it has focus, lines scrolled back. */
export interface PanelHeaderProps {
  readonly view: PanelView;
  readonly cols: number;
  readonly focused: boolean;
  readonly scrollback?: number;
  /** Agents running with no panel (no room); the last panel's header says how many. */
  readonly hidden?: number;
}

/** The SGR-coded header row of a panel, with `+N hidden` at its right end when agents run with no panel. */
export function headerRow(view: PanelView, cols: number, focused: boolean, scrollback = 0, hidden = 0): string {
  const sgr = `1;${HEADER_SGR[stateColor(view.state)]}${focused ? ';7' : ''}`;
  const text = scrollback > 0 ? `${view.header} · ↑${scrollback}` : view.header;
  const note = hidden > 0 ? ` +${hidden} hidden ` : '';
  if (note === '' || note.length >= cols) return styled(text, cols, sgr);
  return styled(text, cols - note.length, sgr) + styled(note, note.length, `7;${SEPARATOR_SGR}`);
}

/** The header row. */
export function PanelHeader({ view, cols, focused, scrollback = 0, hidden = 0 }: PanelHeaderProps): React.JSX.Element | null {
  return <RawRows rows={[headerRow(view, cols, focused, scrollback, hidden)]} cols={cols} height={1} />;
}
