/**
 * The folder `src/io/cockpit/main/`: the main program (this pane, its pty, the program found before the screen is
 * taken, tai first on its PATH). This file: the program in a pty, its output into the main screen, the terminal's
 * replies sent back, screen and pty resized whenever the main pane's rectangle changes.
 */
import { rectOf, type Rect } from '../../../core/panel/layout.js';
import { toPane } from '../../../core/input/pane-input.js';
import type { MouseEncoding, MouseTracking } from '../../../core/input/mouse.js';
import { trackMouseEncoding } from '../../terminal/screen-rows.js';
import type { Board } from '../../../../store/board.js';
import type { CockpitScreens } from '../cockpit-board.js';
import { spawnMain, type MainPty } from './pty.js';

/** The main pane's rectangle: the whole window while it is zoomed. */
export function mainRect(board: Board): Rect {
  const s = board.getState();
  return s.layout.zoomed?.id === 'main' ? s.layout.zoomed.rect : (rectOf(s.layout, 'main') ?? s.layout.main);
}

/** The running main pane. */
export interface MainPane {
  readonly pty: MainPty;
  /** Sends typed keys to the main program, encoded for the modes its terminal is in. */
  type(data: string): void;
  /** What the main program asked for of the mouse (tracking 'none': nothing). */
  mouse(): { readonly tracking: MouseTracking; readonly encoding: MouseEncoding };
  /** Sends mouse reports, already encoded for the program, as they are. */
  sendMouse(data: string): void;
}

/** What the main program is and where it finds the control socket. */
export interface MainPaneOptions {
  readonly argv: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  readonly socketPath?: string;
  /**
   * Sees each piece of the main program's output just before the main
   * screen parses it; true when it wrote it on the terminal ahead of its
   * frame (the echo of a key), which is then parsed after the terminal's turn.
   */
  readonly beforeParse?: (data: string) => boolean;
  /** Told when keys are dropped because the main program does not read them. */
  readonly onKeysDropped?: (line: string) => void;
}

/** Starts the main program at the main pane's size and keeps screen and pty at that size. */
export function startMainPane(board: Board, screens: CockpitScreens, options: MainPaneOptions): MainPane {
  const { main } = screens;
  const r0 = mainRect(board);
  main.resize(r0.cols, r0.rows);
  const pty = spawnMain({
    argv: options.argv,
    cols: r0.cols,
    rows: r0.rows,
    env: options.env,
    ...(options.socketPath === undefined ? {} : { socketPath: options.socketPath }),
    ...(options.onKeysDropped === undefined ? {} : { onKeysDropped: options.onKeysDropped }),
  });
  pty.onData((data) => {
    screens.writeMain(data, options.beforeParse?.(data) ?? false);
  });
  main.term.onData((reply) => pty.write(reply));
  const encoding = trackMouseEncoding(main.term);
  board.subscribe((state, prev) => {
    if (state.layout === prev.layout) return; // a second's tick, output, focus: the rectangle is the layout's
    const r = mainRect(board);
    if (r.cols !== main.term.cols || r.rows !== main.term.rows) {
      main.resize(r.cols, r.rows);
      pty.resize(r.cols, r.rows);
    }
  });
  return {
    pty,
    type(data) {
      if (!data.includes('\x1b')) return pty.write(data); // toPane changes only escapes: no modes to read (xterm.js makes them anew)
      const modes = main.term.modes;
      // Straight to the pty: the main screen parses every write as it arrives (XtermScreen's atOnce), so the
      // echo needs no user-input flag from xterm.js's input(), whose event and debug log were half of a key's
      // way in; its other effect, scrolling a viewport back to
      // the bottom, has nothing to do here: the cockpit reads scrollback from the buffer, the viewport never moves.
      pty.write(toPane(data, { applicationCursorKeys: modes.applicationCursorKeysMode, bracketedPaste: modes.bracketedPasteMode }));
    },
    mouse: () => ({ tracking: main.term.modes.mouseTrackingMode, encoding: encoding.encoding() }),
    sendMouse: (data) => pty.write(data),
  };
}
