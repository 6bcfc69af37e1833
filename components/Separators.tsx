/** The separator lines of the layout: `│` left of the agent column, `─` between panels. */
import React from 'react';
import { Box } from 'ink';
import type { Separators as Lines } from '../src/core/panel/layout.js';
import { styled } from '../src/core/text/fit.js';
import { RawRows } from './RawRows.js';
import { usePalette } from './use-palette.js';

/** Props: the lines, and whether the main pane has focus (its separator is lit). */
export interface SeparatorsProps {
  readonly lines: Lines;
  readonly mainFocused: boolean;
}

/** Every separator at its place. */
export function Separators({ lines, mainFocused }: SeparatorsProps): React.JSX.Element {
  const palette = usePalette();
  const v = lines.vertical;
  const vRow = styled('│', 1, mainFocused ? palette.focusSeparator : palette.separator);
  return (
    <>
      {v && v.rows > 0 ? (
        <Box position="absolute" marginLeft={v.x} marginTop={v.y}>
          <RawRows rows={new Array<string>(v.rows).fill(vRow)} cols={1} height={v.rows} />
        </Box>
      ) : null}
      {lines.horizontal.map((h) => (
        <Box key={`${h.x},${h.y}`} position="absolute" marginLeft={h.x} marginTop={h.y}>
          <RawRows rows={[styled('─'.repeat(h.cols), h.cols, palette.separator)]} cols={h.cols} height={1} />
        </Box>
      ))}
    </>
  );
}
