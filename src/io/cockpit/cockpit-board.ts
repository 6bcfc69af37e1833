/**
 * The board of a cockpit, made before anything is drawn so the socket and the agents can be given it at once. When the
 * cockpit draws, its screens come first (the main terminal and the frame-pacing pane source), since the board makes
 * every panel's screen through them; when not (TAI_ORCH_PANELS=0, no terminal), it supervises hidden panels.
 */
import { layoutSize } from '../../core/screen-bound.js';
import { StartRefusedError } from '../../core/errors.js';
import { createBoard, type Board } from '../../../store/board.js';
import { wantsNoColor } from '../../core/panel/colors.js';
import { createPaneSource, FRAME_MS, type LivePaneSource } from '../terminal/pane-source.js';
import { trackCursorVisibility } from '../terminal/screen-rows.js';
import { MAIN_SCROLLBACK, XtermScreen } from '../terminal/screen.js';

/** Unparsed main-pane output above which the main pane counts as flooded (`seq 1 2000000`). */
export const MAIN_FLOOD_BYTES = 256 * 1024;

/** The time between frames while the main pane is flooded: frames then compete with parsing. */
export const FLOOD_FRAME_MS = 200;

/** The screens of a drawn cockpit. */
export interface CockpitScreens {
  /** The main pane's headless terminal. */
  readonly main: XtermScreen;
  /** Every pane's rows for the components, and the frame pacing. */
  readonly source: LivePaneSource;
  /** Whether the main program hid its cursor (CSI ? 25 l). */
  cursorHidden(): boolean;
  /**
   * Writes the main program's output into the main screen, counting what
   * waits to be parsed; `afterTurn`: its echo is on the terminal already,
   * parse it after the terminal's turn (XtermScreen.writeAfterTurn).
   */
  writeMain(data: string, afterTurn?: boolean): void;
}

/** A cockpit's board, with its screens when it draws. */
export interface CockpitBoard {
  readonly board: Board;
  /** Null when the cockpit draws; otherwise why nothing is drawn. */
  readonly drawingOff: string | null;
  readonly screens: CockpitScreens | null;
}

/** What a cockpit's board is made from. */
export interface CockpitBoardOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly stdout?: NodeJS.WriteStream;
  /** The size of the clients' terminal when the cockpit is a server (it always draws); else `stdout` decides. */
  readonly size?: { readonly cols: number; readonly rows: number };
  readonly now?: () => number;
  readonly log?: (line: string) => void;
}

/** What a dumb terminal is told, before anything is drawn (docs/cockpit.md, "Terminals that cannot draw"). */
export const DUMB_TERMINAL = 'tai: this terminal (TERM=dumb) cannot show the cockpit; run it in a terminal emulator, or use tai spawn / TAI_ORCH_PANELS=0';

/**
 * Why nothing is drawn, or null when the cockpit draws. A terminal that says
 * it is dumb (no cursor addressing, no alternate screen) cannot show the
 * full-screen cockpit: a StartRefusedError (exit 1) unless panels are off.
 */
export function drawingOffReason(env: NodeJS.ProcessEnv, stdout: NodeJS.WriteStream): string | null {
  if (env.TAI_ORCH_PANELS === '0') return 'panels are switched off (TAI_ORCH_PANELS=0)';
  if (!stdout.isTTY) return 'stdout is not a terminal';
  if (env.TERM === 'dumb') throw new StartRefusedError(DUMB_TERMINAL, 1);
  return null;
}

/** Makes the board (and, when the cockpit draws, its screens at the terminal's size). */
export function createCockpitBoard(options: CockpitBoardOptions = {}): CockpitBoard {
  const env = options.env ?? process.env;
  const stdout = options.stdout ?? process.stdout;
  const log = options.log ?? (() => {});
  const off = options.size === undefined ? drawingOffReason(env, stdout) : null;
  if (off !== null) return { board: createBoard({ drawingOff: off, log }), drawingOff: off, screens: null };
  const { cols, rows } = layoutSize(options.size?.cols ?? (stdout.columns || 80), options.size?.rows ?? (stdout.rows || 24));
  const screens = createCockpitScreens(cols, rows, options.now ?? Date.now);
  const board = createBoard({
    createScreen: (c, r) => screens.source.createScreen(c, r),
    mainHistory: () => screens.main.history(),
    cols,
    rows,
    log,
    statusLine: true,
    noColor: wantsNoColor(env),
  });
  screens.source.attach(board);
  return { board, drawingOff: null, screens };
}

function createCockpitScreens(cols: number, rows: number, now: () => number): CockpitScreens {
  const main = new XtermScreen(cols, rows, MAIN_SCROLLBACK, true);
  const visibility = trackCursorVisibility(main.term);
  let backlog = 0;
  const source = createPaneSource(main, () => (backlog > MAIN_FLOOD_BYTES ? FLOOD_FRAME_MS : FRAME_MS), now, false);
  return {
    main,
    source,
    cursorHidden: () => visibility.hidden(),
    writeMain(data, afterTurn = false) {
      backlog += data.length;
      const parsed = (): void => void (backlog -= data.length);
      if (afterTurn) main.writeAfterTurn(data, parsed);
      else main.write(data, parsed);
    },
  };
}
