/**
 * The board: one zustand vanilla store that opens panels, turns agent events into screen bytes, flushes them in
 * coalesced steps and supervises every agent on its clock (docs/spec.md, "The board", "Panel state machine",
 * "Supervision"). Its records are the mutable truth React never sees; selectors read only the published snapshot,
 * so a streaming agent costs one store update per flush, not per token. Actions take `now`; it reads no clock.
 */
import { createStore } from 'zustand/vanilla';
import { layout as computeLayout } from '../src/core/panel/layout.js';
import { UI_START } from './board-ui.js';
import type { Board, BoardCounters, BoardOptions, BoardState } from './board-types.js';
import { boardContext, DEFAULT_COLS, DEFAULT_ROWS } from './board-context.js';
import { lifecycleActions } from './board-lifecycle.js';
import { seenActions, tickActions } from './board-tick.js';
import { rowActions } from './board-rows.js';
import { viewActions } from './board-view.js';

export type * from './board-types.js';
export { KEPT_TRANSCRIPTS_MAX, NO_DISPLAY } from './board-context.js';

/** Creates a board; it works without React and without a screen. */
export function createBoard(options: BoardOptions = {}): Board & { counters: BoardCounters } {
  const counters: BoardCounters = { flushes: 0, bytesWritten: 0, events: 0, displayFailures: 0, hookErrors: 0, formatted: 0 };
  const store = createStore<BoardState>()((setState, get) => {
    // zustand's Object.assign turns a state of this many properties into a dictionary (a big allocation per
    // publish, a hash lookup per read); a spread keeps its shape (docs/perf-log.md, "A silent cockpit's second, patched").
    const set = (change: Partial<BoardState>): void => setState({ ...get(), ...change }, true);
    const ctx = boardContext(options, counters, set, get);
    const cols = options.cols ?? DEFAULT_COLS;
    const rows = options.rows ?? DEFAULT_ROWS;
    const statusLine = options.statusLine ?? false;
    return {
      panels: [],
      layout: computeLayout({ cols, rows, panels: [], statusLine }),
      cols,
      rows,
      drawingOff: ctx.vars.drawingOff,
      noColor: options.noColor ?? false,
      statusLine,
      asking: 0,
      live: 0,
      ...UI_START,
      ...lifecycleActions(ctx),
      ...tickActions(ctx),
      ...seenActions(ctx),
      ...viewActions(ctx),
      ...rowActions(ctx),
    };
  });
  return Object.assign(store, { counters });
}
