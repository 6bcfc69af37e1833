/**
 * One agent's panel for a host Ink app (docs/embedding.md, "A host Ink app"): its header and screen in the host's Box.
 * The screen keeps the size the board gave it: a smaller box clips it, a larger one leaves the rest blank. A panel that
 * is gone or hidden shows one line saying so.
 */
import React, { useSyncExternalStore } from 'react';
import { Box } from 'ink';
import type { Board } from '../store/board.js';
import { AgentPanel } from './AgentPanel.js';
import { fit } from '../src/core/text/fit.js';
import type { PaneSource } from '../src/core/panel/pane-source.js';
import { RawRows } from './RawRows.js';

/** Props: the board, its screens and the panel's id. */
export interface AgentPanelBoxProps {
  readonly board: Board;
  readonly source: PaneSource;
  readonly id: number;
  /** Draw the header inverted, as the cockpit does for the focused panel. */
  readonly focused?: boolean;
}

/** The panel, or a line saying why there is none. */
export function AgentPanelBox({ board, source, id, focused = false }: AgentPanelBoxProps): React.JSX.Element {
  useSyncExternalStore(source.subscribe, source.version);
  const s = board.getState();
  const view = s.panels.find((p) => p.id === id);
  const place = s.layout.panels.find((p) => p.id === id);
  if (!view || !place) {
    const why = view ? `#${id} ${view.label}: ${view.state}, no panel (${view.reason ?? 'hidden'})` : `#${id}: no such panel`;
    return (
      <Box flexGrow={1} overflow="hidden">
        <RawRows rows={[fit(why, why.length)]} cols={why.length} height={1} />
      </Box>
    );
  }
  const rect = { x: 0, y: 0, cols: place.rect.cols, rows: place.rect.rows };
  return (
    <Box flexGrow={1} flexShrink={1} overflow="hidden" width={rect.cols} height={rect.rows}>
      <AgentPanel view={view} rect={rect} focused={focused} scrollback={0} source={source} version={source.paneVersion(id)} />
    </Box>
  );
}
