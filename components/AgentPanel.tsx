/** One agent's panel: its header on row 0, its screen below. */
import { memo } from 'react';
import { Box } from 'ink';
import type { Rect } from '../src/core/panel/layout.js';
import type { PanelView } from '../store/board.js';
import { PanelHeader } from './PanelHeader.js';
import type { PaneSource } from '../src/core/panel/pane-source.js';
import { RawRows } from './RawRows.js';

/** Props: the panel, where it goes, focus and scroll, and its screen's version (the memo key). */
export interface AgentPanelProps {
  readonly view: PanelView;
  readonly rect: Rect;
  readonly focused: boolean;
  readonly scrollback: number;
  readonly source: PaneSource;
  readonly version: number;
  /** Agents with no panel, shown on this panel's header (the column's last). */
  readonly hidden?: number;
}

/** A panel placed at its rectangle; re-renders only when its view, place or screen changed. */
export const AgentPanel = memo(function AgentPanel({ view, rect, focused, scrollback, source, hidden = 0 }: AgentPanelProps) {
  const body = source.rows(view.id, scrollback);
  return (
    <Box position="absolute" marginLeft={rect.x} marginTop={rect.y} width={rect.cols} height={rect.rows} flexDirection="column">
      <PanelHeader view={view} cols={rect.cols} focused={focused} scrollback={scrollback} hidden={hidden} />
      <RawRows rows={body} cols={rect.cols} height={rect.rows - 1} />
    </Box>
  );
});
