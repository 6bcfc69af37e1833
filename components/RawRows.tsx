/**
 * Pre-coded rows drawn through Ink without entering Ink's text caches: Ink
 * measures and wraps a constant blank block (one per size), and a Transform
 * swaps in the real SGR-coded row at output time. Ink's measure and wrap
 * caches never evict (ink#986), so streamed text must never be a Text child.
 */
import React from 'react';
import { Box, Text, Transform } from 'ink';

/** Props: the rows (each exactly `cols` cells wide; none leaves the block empty) and the block's size. */
export interface RawRowsProps {
  readonly rows: readonly string[];
  readonly cols: number;
  readonly height: number;
}

const blanks = new Map<string, string>();

/** The blank block of a size; bounded by the sizes the window ever had. */
function blank(cols: number, height: number): string {
  const key = `${cols}x${height}`;
  let b = blanks.get(key);
  if (b === undefined) {
    b = Array.from({ length: height }, () => ' '.repeat(cols)).join('\n');
    blanks.set(key, b);
  }
  return b;
}

/** Draws `rows` in a `cols` x `height` block. */
export function RawRows({ rows, cols, height }: RawRowsProps): React.JSX.Element | null {
  if (cols <= 0 || height <= 0) return null;
  // No rows: the output stage paints this rectangle (the cockpit's overlay mode); Ink writes nothing here.
  if (rows.length === 0) return <Box width={cols} height={height} flexShrink={0} />;
  const blankRow = ' '.repeat(cols);
  return (
    <Box width={cols} height={height} flexShrink={0}>
      <Transform transform={(_line, i) => rows[i] ?? blankRow}>
        <Text>{blank(cols, height)}</Text>
      </Transform>
    </Box>
  );
}
