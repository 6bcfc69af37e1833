/** The right column: every shown panel at its place, in creation order. */
import React from 'react';
import type { PaneId, PanelPlace } from '../src/core/panel/layout.js';
import type { PanelView } from '../store/board.js';
import { AgentPanel } from './AgentPanel.js';
import type { PaneSource } from '../src/core/panel/pane-source.js';

/** Props: the places from the layout, the panels' views, focus and scroll. */
export interface AgentColumnProps {
  readonly places: readonly PanelPlace[];
  readonly panels: readonly PanelView[];
  readonly focus: PaneId;
  readonly scrollback: number;
  readonly source: PaneSource;
  /** How many agents run with no panel. */
  readonly hidden: number;
}

/** The panels of the column. */
export function AgentColumn({ places, panels, focus, scrollback, source, hidden }: AgentColumnProps): React.JSX.Element {
  const byId = new Map(panels.map((p) => [p.id, p]));
  return (
    <>
      {places.map((place, i) => {
        const view = byId.get(place.id);
        if (!view) return null;
        const focused = focus === place.id;
        return (
          <AgentPanel
            key={place.id}
            view={view}
            rect={place.rect}
            focused={focused}
            scrollback={focused ? scrollback : 0}
            source={source}
            version={source.paneVersion(place.id)}
            hidden={i === places.length - 1 ? hidden : 0}
          />
        );
      })}
    </>
  );
}
