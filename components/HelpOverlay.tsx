/**
 * The help overlay: the prefix key and what each key after it does, over the
 * window above the status line; lines longer than the window wrap under
 * their description, so a narrow window (60 columns) loses nothing.
 */
import React from 'react';
import { COPY_KEYS, LIST_KEYS, MENTION_KEYS, PREFIX_KEYS, prefixName } from '../src/core/input/keys.js';
import { fit, styled } from '../src/core/text/fit.js';
import { RawRows } from './RawRows.js';

/** Props: the window size and the prefix byte. */
export interface HelpOverlayProps {
  readonly cols: number;
  readonly rows: number;
  readonly prefix: string;
}

const WHAT: Readonly<Record<string, string>> = {
  next: 'focus the next pane',
  prev: 'focus the previous pane',
  up: 'focus the pane above',
  down: 'focus the pane below',
  left: 'focus the pane on the left',
  right: 'focus the pane on the right',
  close: 'close the focused panel (cancels its agent)',
  zoom: 'zoom the focused pane to full screen and back',
  'scroll-1': 'scroll back a page (PageUp/PageDown go on, any other key returns)',
  scroll1: 'scroll forward a page',
  help: 'this help',
  lane_diff: "open the focused lane's diff, zoomed (q closes it)",
  detach: 'detach this terminal: agents go on (tai attach comes back)',
};

/** The column descriptions start at (three spaces, the 16-column key, one space). */
const DESCRIPTION_AT = 20;

/** The help text as rows (exported for tests). */
export function helpLines(prefix: string): string[] {
  const p = prefixName(prefix);
  const lines = [` tai keys: press ${p}, then`, ''];
  for (const entry of PREFIX_KEYS) {
    const c = entry.command;
    const key = c.cmd === 'focus' ? c.to : c.cmd === 'scroll' ? `scroll${'pages' in c ? c.pages : 0}` : c.cmd;
    lines.push(`   ${entry.label.padEnd(16)} ${WHAT[key] ?? key}`);
  }
  lines.push(`   ${COPY_KEYS.join(' / ').padEnd(16)} copy mode: arrows/PageUp move, / searches back, n again, v selects, Enter copies, q leaves`);
  lines.push(`   ${MENTION_KEYS.join(' / ').padEnd(16)} start an agent by name: @name prompt, Tab completes, Enter starts, Esc cancels`);
  lines.push(`   ${LIST_KEYS.join(' / ').padEnd(16)} list every agent (running, hidden, finished); Enter opens one zoomed`);
  lines.push(`   ${`${p} ${p}`.padEnd(16)} send ${p} itself`);
  lines.push('', ' Every other key goes to the focused pane; keys typed into a panel are dropped.', ' Press any key to close this help.');
  return lines;
}

/** Cuts a help line into rows of at most `cols` at spaces, continuing under the description column (or the line's own indent). */
export function wrapHelpLine(line: string, cols: number): string[] {
  if (line.length <= cols || cols < 2) return [line];
  const indent = line.startsWith('   ') && line.length > DESCRIPTION_AT && cols > DESCRIPTION_AT + 10 ? DESCRIPTION_AT : 1;
  const out: string[] = [];
  let rest = line;
  while (rest.length > cols) {
    let cut = rest.lastIndexOf(' ', cols);
    if (cut <= indent) cut = cols;
    out.push(rest.slice(0, cut));
    rest = ' '.repeat(indent) + rest.slice(cut).trimStart();
  }
  out.push(rest);
  return out;
}

/** The overlay. */
export function HelpOverlay({ cols, rows, prefix }: HelpOverlayProps): React.JSX.Element | null {
  const lines = helpLines(prefix).flatMap((l, i) => (i === 0 ? [l] : wrapHelpLine(l, cols)));
  const out = Array.from({ length: rows }, (_, y) => (y === 0 ? styled(lines[0], cols, '1;7') : fit(lines[y] ?? '', cols)));
  return <RawRows rows={out} cols={cols} height={rows} />;
}
