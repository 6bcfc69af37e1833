/**
 * The mention prompt: one row at the bottom of the window while it is open,
 * `@name prompt` with the cursor shown in reverse video, then Tab's choices,
 * `starting…`, or the last error in red until the next key.
 */
import React from 'react';
import { Box } from 'ink';
import { useStore } from 'zustand';
import type { MentionLine } from '../src/core/input/mention-line.js';
import type { MentionPrompt as MentionPromptStore } from '../store/mention-prompt.js';
import { fit, styled } from '../src/core/text/fit.js';
import { RawRows } from './RawRows.js';
import { usePalette } from './use-palette.js';
import { COLOR_PALETTE, type Palette } from '../src/core/panel/colors.js';

/** Props: the prompt's store, the window's width and the row to draw on. */
export interface MentionPromptProps {
  readonly prompt: MentionPromptStore;
  readonly cols: number;
  readonly y: number;
}

/** The label before the line. */
export const PROMPT_LABEL = ' mention ▸ ';

/** The prompt's row: label, line with its cursor, and a note (error, choices or busy), exactly `cols` wide. */
export function promptRow(line: MentionLine, cols: number, busy = false, palette: Palette = COLOR_PALETTE): string {
  const note = line.error ? ` ✗ ${line.error}` : busy ? ' · starting…' : line.choices ? ` · ${line.choices.join('  ')}` : '';
  const room = Math.max(1, cols - PROMPT_LABEL.length - 1);
  // A line longer than the room scrolls so the cursor stays in view.
  const start = Math.max(0, line.cursor - room + 1);
  const shown = line.text.slice(start, start + room);
  const at = line.cursor - start;
  const cursorChar = shown[at] ?? ' ';
  const body = `${shown.slice(0, at)}\x1b[7m${cursorChar}\x1b[27m${shown.slice(at + 1)}`;
  const used = PROMPT_LABEL.length + shown.length + (at >= shown.length ? 1 : 0);
  const noteCols = Math.max(0, cols - used);
  const noteSgr = line.error ? palette.error : palette.hint;
  return `${styled(PROMPT_LABEL, PROMPT_LABEL.length, palette.label)}${body}${noteCols > 0 ? styled(note, noteCols, noteSgr) : ''}`;
}

/** The prompt row, or nothing while the prompt is closed. */
export function MentionPrompt({ prompt, cols, y }: MentionPromptProps): React.JSX.Element | null {
  const line = useStore(prompt, (s) => s.line);
  const busy = useStore(prompt, (s) => s.busy);
  const palette = usePalette();
  if (line === null || cols <= 0) return null;
  const row = cols > PROMPT_LABEL.length + 2 ? promptRow(line, cols, busy, palette) : fit(line.text, cols);
  return (
    <Box position="absolute" marginLeft={0} marginTop={y} width={cols} height={1}>
      <RawRows rows={[row]} cols={cols} height={1} />
    </Box>
  );
}
