/**
 * The folder `src/io/embed/`: tai as a library for another Node program (docs/embedding.md). This file: a board
 * drawing into real headless screens, the screens' render cue and the board's clock, so supervision runs as in
 * the cockpit; a host Ink app renders AgentColumnBox or AgentPanelBox, sized by `fitColumn`.
 */
import type { PaneSource } from '../../core/panel/pane-source.js';
import { fitColumn, windowForColumn } from '../../core/panel/column-fit.js';
import { createBoard, type Board } from '../../../store/board.js';
import { startBoardClock } from '../cockpit/board-clock.js';
import { createPaneSource, FRAME_MS } from '../terminal/pane-source.js';
import { XtermScreen } from '../terminal/screen.js';

/** How to build a dashboard; every field has a default. */
export interface DashboardOptions {
  /** The column's first size, until the host's box is measured; default 60 x 24. */
  readonly cols?: number;
  readonly rows?: number;
  /** Live agents at once; default AGENTS_MAX_PARALLEL (8). */
  readonly maxLive?: number;
  /** The clock supervision reads; default Date.now. */
  readonly now?: () => number;
  /** Where the board reports what it cannot throw. */
  readonly log?: (line: string) => void;
}

/** A board drawn by the components, its screens and its clock. */
export interface Dashboard {
  readonly board: Board;
  /** The rows and render cue the components read. */
  readonly source: PaneSource;
  /** Sizes the board so its agent column is `cols` x `rows` (the host's box). */
  fitColumn(cols: number, rows: number): void;
  /** Stops the clock and the render cue; agents are not stopped (cancel them first, or `shutdown`). */
  stop(): void;
}

/** Creates a dashboard: a board with screens, the render cue, and the board's clock running. */
export function createDashboard(options: DashboardOptions = {}): Dashboard {
  const now = options.now ?? Date.now;
  const cols = options.cols ?? 60;
  const rows = options.rows ?? 24;
  // The main pane is never shown by a host; the source still wants a screen for it.
  const source = createPaneSource(new XtermScreen(1, 1, 0), FRAME_MS, now, true);
  const board = createBoard({
    createScreen: (c, r) => source.createScreen(c, r),
    cols: windowForColumn(cols),
    rows,
    ...(options.maxLive === undefined ? {} : { maxLive: options.maxLive }),
    ...(options.log === undefined ? {} : { log: options.log }),
  });
  source.attach(board);
  const clock = startBoardClock(board, now);
  return {
    board,
    source,
    fitColumn: (c, r) => fitColumn(board, c, r),
    stop() {
      clock.stop();
      source.stop();
    },
  };
}
