/** The main pane: the REPL's screen, drawn at its rectangle. */
import { memo } from 'react';
import { Box } from 'ink';
import type { Rect } from '../src/core/panel/layout.js';
import { styled } from '../src/core/text/fit.js';
import type { PaneSource } from '../src/core/panel/pane-source.js';
import { RawRows } from './RawRows.js';

/** Props: where it goes, lines scrolled back, and its screen's version (the memo key). */
export interface MainPaneProps {
  readonly rect: Rect;
  readonly scrollback: number;
  readonly source: PaneSource;
  readonly version: number;
}

/** The main pane; when scrolled back its top row says so. */
export const MainPane = memo(function MainPane({ rect, scrollback, source }: MainPaneProps) {
  let rows = source.rows('main', scrollback);
  if (scrollback > 0) {
    rows = [styled(` scrolled back ${scrollback} lines · any key returns`, rect.cols, '7'), ...rows.slice(1)];
  }
  return (
    <Box position="absolute" marginLeft={rect.x} marginTop={rect.y} width={rect.cols} height={rect.rows}>
      <RawRows rows={rows} cols={rect.cols} height={rect.rows} />
    </Box>
  );
});
