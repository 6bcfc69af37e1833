/**
 * The board: one zustand vanilla store that opens panels, turns agent events
 * into screen bytes, flushes them in coalesced steps and supervises every
 * agent on its clock, shown or not (docs/spec.md, "The board", "Panel state
 * machine" and "Supervision"). This file puts the store together; its private
 * state is in board-context.ts and its actions in four groups:
 * board-lifecycle.ts (an agent's life: open, emit, hold, stop, finish, close;
 * questions), board-tick.ts (the supervision tick, the flush, the clock's
 * wake-ups; what a tick decides in board-supervise.ts), board-view.ts (layout, focus, zoom, scrollback) and
 * board-rows.ts (the status, an agent's row, the agent list's reveal). What the actions apply lives beside them: supervision.ts (a record's
 * life: clocks, heartbeats, holds, stops, its end), panel-output.ts (screens
 * and the output queued for them), board-snapshot.ts (what is published),
 * feed-panes.ts (vpane_* panes and their lease) and board-ui.ts (focus, zoom,
 * scrollback, help, the window's size).
 *
 * Vocabulary:
 * - record: the board's mutable bookkeeping for one panel (PanelRecord). It is
 *   the single source of truth; React never sees it.
 * - snapshot: the immutable `panels`/`layout` the store publishes on open,
 *   finish, close, every tick and every flush that wrote something. Selectors
 *   read only the snapshot, so a streaming agent costs at most one store
 *   update per flush, never one per token. Which records it shows or hides:
 *   see board-snapshot.ts.
 * - wake-up: the board tells its clock that work appeared (board-wake.ts).
 *
 * Every action that depends on time takes `now` (ms); the board never reads
 * a clock. src/io/cockpit/board-clock.ts drives tick() and flush() from real time.
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
