/**
 * The help overlay: the prefix key and what each key after it does, over the
 * window above the status line (src/core/input/help-text.ts); lines longer
 * than the window wrap under their description, and a window too short for
 * all of them shows a part from `top`, which the keys scroll.
 */
import React from 'react';
import { helpView } from '../src/core/input/help-text.js';
import { fit, styled } from '../src/core/text/fit.js';
import { RawRows } from './RawRows.js';

export { helpLines } from '../src/core/input/help-text.js';

/** Props: the window size, the prefix byte and the first body line shown. */
export interface HelpOverlayProps {
  readonly cols: number;
  readonly rows: number;
  readonly prefix: string;
  readonly top?: number;
}

/** The overlay. */
export function HelpOverlay({ cols, rows, prefix, top = 0 }: HelpOverlayProps): React.JSX.Element | null {
  const lines = helpView(prefix, cols, rows, top).rows;
  const out = Array.from({ length: rows }, (_, y) => (y === 0 ? styled(lines[0] ?? '', cols, '1;7') : fit(lines[y] ?? '', cols)));
  return <RawRows rows={out} cols={cols} height={rows} />;
}
