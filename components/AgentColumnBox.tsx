/**
 * The agent column for a host Ink app (docs/embedding.md, "A host Ink app"): every shown panel stacked in the host's
 * Box. It measures its box after each render and fits the board's column to it (src/core/panel/column-fit.ts), so the
 * screens wrap at the host's width; it renders on the screens' cue.
 */
import React, { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { Box, measureElement, type DOMElement } from 'ink';
import { columnX, fitColumn } from '../src/core/panel/column-fit.js';
import type { Board } from '../store/board.js';
import { AgentColumn } from './AgentColumn.js';
import type { PaneSource } from '../src/core/panel/pane-source.js';
import { Separators } from './Separators.js';

/** Props: the board and its screens (a Dashboard's), and optionally a fixed size instead of the measured one. */
export interface AgentColumnBoxProps {
  readonly board: Board;
  readonly source: PaneSource;
  readonly cols?: number;
  readonly rows?: number;
}

/** The agent column, filling its parent Box. */
export function AgentColumnBox({ board, source, cols, rows }: AgentColumnBoxProps): React.JSX.Element {
  useSyncExternalStore(source.subscribe, source.version);
  const ref = useRef<DOMElement>(null);
  // Nothing is drawn until the box is measured: the board's screens are sized from it.
  const [size, setSize] = useState<{ cols: number; rows: number } | null>(null);
  useEffect(() => {
    const measured = ref.current ? measureElement(ref.current) : { width: 0, height: 0 };
    const width = cols ?? measured.width;
    const height = rows ?? measured.height;
    if (width <= 0 || height <= 0) return;
    fitColumn(board, width, height);
    if (size?.cols !== width || size.rows !== height) setSize({ cols: width, rows: height });
  });
  const s = board.getState();
  const x0 = columnX(s.layout);
  const places = s.layout.panels.map((p) => ({ id: p.id, rect: { ...p.rect, x: p.rect.x - x0 } }));
  const lines = { horizontal: s.layout.separators.horizontal.map((h) => ({ ...h, x: h.x - x0 })) };
  return (
    <Box ref={ref} flexGrow={1} flexShrink={1} overflow="hidden" {...(cols === undefined ? {} : { width: cols })} {...(rows === undefined ? {} : { height: rows })}>
      {size === null ? null : (
        <>
          <Separators lines={lines} mainFocused={false} />
          <AgentColumn places={places} panels={s.panels} focus={s.focus} scrollback={s.scrollback} source={source} hidden={s.layout.hidden.length} />
        </>
      )}
    </Box>
  );
}
