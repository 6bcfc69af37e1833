/** Row 0 of a panel, drawn from src/core/panel/header-row.ts. */
import React from 'react';
import type { PanelView } from '../store/board.js';
import { headerRow } from '../src/core/panel/header-row.js';
import { RawRows } from './RawRows.js';
import { usePalette } from './use-palette.js';

/** Props: the panel, its width, whether it has focus, lines scrolled back. */
export interface PanelHeaderProps {
  readonly view: PanelView;
  readonly cols: number;
  readonly focused: boolean;
  readonly scrollback?: number;
  /** Agents running with no panel (no room); the last panel's header says how many. */
  readonly hidden?: number;
}

/** The header row. */
export function PanelHeader({ view, cols, focused, scrollback = 0, hidden = 0 }: PanelHeaderProps): React.JSX.Element | null {
  const palette = usePalette();
  return <RawRows rows={[headerRow(view, cols, focused, scrollback, hidden, palette)]} cols={cols} height={1} />;
}
