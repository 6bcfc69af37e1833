/**
 * The one-line live status an attached `tai spawn` draws on a terminal's
 * stderr while it waits: the state's icon and name, the elapsed
 * time, tool calls, tokens and the last line of the agent's text, fitted to
 * the terminal's width. Pure: src/cli/spawn/spawn-status.ts draws it in place.
 */
import { formatElapsed, formatTokens, STATE_ICON } from '../panel/header.js';
import type { PanelState } from '../panel/panel-state.js';
import { sanitizeLine } from '../text/sanitize.js';
import { clip } from '../text/wrap.js';

/** What the line shows of one agent. */
export interface LiveSample {
  readonly state: PanelState;
  readonly elapsedMs: number;
  readonly tools: number;
  readonly tokens: number;
  /** The last non-empty line of its text so far ('' for none). */
  readonly last: string;
}

/** The status line for `sample`, at most `cols - 1` columns (the last column is never written). */
export function liveStatusLine(id: number, sample: LiveSample, cols: number): string {
  const counts = `${sample.tools} ${sample.tools === 1 ? 'tool' : 'tools'} · ${formatTokens(sample.tokens)} ${sample.tokens === 1 ? 'token' : 'tokens'}`;
  const head = `${STATE_ICON[sample.state]} #${id} ${sample.state} · ${formatElapsed(sample.elapsedMs)} · ${counts}`;
  const last = sanitizeLine(sample.last).trim();
  return clip(last === '' ? head : `${head} · ${last}`, Math.max(1, cols - 1));
}

/** The last non-empty line of `text` (what the agent said most recently). */
export function lastLine(text: string): string {
  const lines = text.split(/\r?\n/);
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = (lines[i] ?? '').trim();
    if (line !== '') return line;
  }
  return '';
}
