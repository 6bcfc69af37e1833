/**
 * The components' PaneSource over real screens (PaneCells) and the cockpit's frame clock: a cue at most one a FRAME_MS,
 * after a screen parsed or the board published. Inline (tests, embedding) every cue renders React; overlay (the cockpit)
 * renders React only when the chrome changed (sameChrome) and pastes the screens' cells over it, since an Ink frame
 * costs the same whatever changed (docs/perf-log.md, "Figures taken out of code comments"). Header-only frames patch rows.
 */
import type { PaneSource } from '../../core/panel/pane-source.js';
import type { Board, BoardState } from '../../../store/board.js';
import { headerChanges, sameChrome } from './snapshot-change.js';
import { PaneCells } from './pane-cells.js';
import { XtermScreen } from './screen.js';
import type { Overlay } from './term-output.js';
import { after, type Cancel } from '../after.js';

/** The shortest time between two frames (~30 a second). */
export const FRAME_MS = 33;

/** The shortest time between two frames when only agent panels changed (they are read, not typed into). */
export const PANEL_FRAME_MS = 50;

/** How long after a key press changes are drawn without waiting for the frame slot. */
export const EXPEDITE_MS = 50;

/** A PaneSource that also makes the board's panel screens (so it knows when they change). */
export interface LivePaneSource extends PaneSource {
  /** The board's screen factory: real screens whose parsed output bumps their pane. */
  createScreen(cols: number, rows: number): XtermScreen;
  /** Attaches the board (after it is created with this source's factory). */
  attach(board: Board): void;
  /** Something changed: a frame soon (coalesced). */
  dirty(): void;
  /** A key was typed: the next change is drawn at once, not at the next frame slot (echo latency). */
  expedite(): void;
  /** Runs a pending frame now (tests, the soak). */
  flushNow(): void;
  /**
   * Called after every cue, once React has rendered (the output stage draws
   * then). `headers`: the frame is due only for these panels' new header
   * text (a second's elapsed time) and nothing else waits to be drawn.
   */
  onFrame(listener: (headers?: readonly number[]) => void): void;
  /** Overlay mode: every drawn pane's screen cells at its body's place. */
  overlays(): Overlay[];
  /** Overlay mode: the header rows of the drawn panels among `ids`, as overlays() makes them; undefined while help covers them. */
  headerOverlays(ids: readonly number[]): Overlay[] | undefined;
  stop(): void;
}

/**
 * When frames are drawn: at most one an `interval()`, only after a change, at once after a key (`expedite`), at the
 * panels' pace for a panel's output. A cue renders React first (the chrome changed); then the frame listeners draw.
 */
class FrameClock {
  cue = 0;
  chromeDirty = true;
  stopped = false;
  readonly listeners = new Set<() => void>();
  readonly frameListeners: ((headers?: readonly number[]) => void)[] = [];
  private lastCue = -Infinity;
  private timer: Cancel | undefined;
  private timerDue = 0;
  private urgentUntil = -Infinity;
  /** A frame is being drawn synchronously (a frame listener must not start another). */
  private drawingNow = false;

  constructor(
    readonly interval: () => number,
    private readonly now: () => number,
    private readonly main: XtermScreen,
  ) {}

  expedite(): void {
    this.urgentUntil = this.now() + EXPEDITE_MS;
  }

  /**
   * Arms the frame timer for at least `minGap` after the last frame (at once after a key); an earlier due time wins.
   * `inTurn`: a frame already due is drawn in this turn; `headers`: only these panels' header text changed.
   */
  schedule(minGap: number, inTurn = false, headers?: readonly number[]): void {
    if (this.stopped) return;
    const t = this.now();
    // Just after a key press with nothing else to render, the frame is drawn now, in this very turn: the
    // echo of a typed key reaches the terminal without waiting for the event loop to come round twice.
    // So is a header's new text whose frame is due (a second's tick: its frame costs no extra turns).
    const due = t < this.urgentUntil || (inTurn && this.timer === undefined && t >= this.lastCue + minGap);
    if (due && !this.chromeDirty && !this.drawingNow) {
      // A frame already waiting on its timer has more to draw than these headers.
      const only = this.timer === undefined ? headers : undefined;
      this.timer?.();
      this.timer = undefined;
      this.lastCue = t;
      this.frame(only);
      return;
    }
    this.arm(t, t < this.urgentUntil ? t : Math.max(t, this.lastCue + minGap));
  }

  /**
   * A panel's screen parsed output: a frame at the panels' pace, on the timer even after a key press. The flush parses
   * every panel in its own turn, so this runs up to eight times a flush and one frame draws them all.
   */
  panelParsed(): void {
    if (this.stopped) return;
    const t = this.now();
    this.arm(t, Math.max(t, this.lastCue + Math.max(this.interval(), PANEL_FRAME_MS)));
  }

  /** Runs a pending frame now (tests, the soak). */
  flushNow(): void {
    if (this.timer === undefined) return;
    this.timer();
    this.fire();
  }

  stop(): void {
    this.stopped = true;
    this.timer?.();
    this.listeners.clear();
  }

  /** Arms the frame timer for `at` (it is `t` now), unless it is armed for that time or sooner already. */
  private arm(t: number, at: number): void {
    if (this.timer !== undefined) {
      if (at >= this.timerDue) return;
      this.timer();
    }
    this.timerDue = at;
    this.timer = after(at - t, () => this.fire());
  }

  private fire(): void {
    this.timer = undefined;
    if (this.stopped) return;
    this.lastCue = this.now();
    if (this.chromeDirty) {
      this.chromeDirty = false;
      this.cue++;
      for (const l of [...this.listeners]) l();
    }
    // React's update lands in a microtask; draw after it.
    setImmediate(() => {
      if (!this.stopped) this.frame();
    });
  }

  /** Runs the frame listeners, the main screen settled first (an echo's parse held for the terminal's turn). */
  private frame(...headers: [] | [readonly number[] | undefined]): void {
    this.drawingNow = true;
    try {
      this.main.settle();
      for (const l of this.frameListeners) l(...headers);
    } finally {
      this.drawingNow = false;
    }
  }
}

/** Whether the board's change touches nothing drawn: a flush that only fed screens (their parsed output schedules the frame). */
function onlyScreensFed(state: BoardState, prev: BoardState): boolean {
  return (
    state.panels === prev.panels &&
    state.layout === prev.layout &&
    state.focus === prev.focus &&
    state.zoom === prev.zoom &&
    state.help === prev.help &&
    state.scrollback === prev.scrollback &&
    state.cols === prev.cols &&
    state.rows === prev.rows &&
    state.drawingOff === prev.drawingOff
  );
}

/** Makes the source for a main screen; `frameMs` may vary (a flooded main pane draws less often); `inline` draws screens through the components. */
export function createPaneSource(
  main: XtermScreen,
  frameMs: number | (() => number) = FRAME_MS,
  now: () => number = Date.now,
  inline = true,
): LivePaneSource {
  const cells = new PaneCells(main);
  const clock = new FrameClock(typeof frameMs === 'number' ? () => frameMs : frameMs, now, main);
  /** The snapshot the chrome was last compared with (undefined: none yet). */
  let lastChrome: BoardState | undefined;

  const watch = (screen: XtermScreen): void => {
    cells.versions.set(screen, 0);
    screen.term.onWriteParsed(() => {
      cells.versions.set(screen, (cells.versions.get(screen) ?? 0) + 1);
      if (inline) clock.chromeDirty = true;
      if (screen === main) source.dirty();
      else clock.panelParsed();
    });
  };

  const source: LivePaneSource = {
    createScreen(cols, rows) {
      const s = new XtermScreen(cols, rows);
      watch(s);
      return s;
    },
    attach(b) {
      cells.board = b;
      b.subscribe((state, prev) => {
        if (onlyScreensFed(state, prev)) return;
        cells.forgetGone(state);
        const structural = inline || lastChrome === undefined || !sameChrome(state, lastChrome);
        lastChrome = state;
        if (structural) {
          clock.chromeDirty = true;
          source.dirty();
        } else clock.schedule(Math.max(clock.interval(), PANEL_FRAME_MS), true, headerChanges(state, prev)); // a header's text: an overlay, at the panels' pace
      });
    },
    rows: (pane, scrollback) => (inline ? cells.rows(pane, scrollback) : []),
    paneVersion(pane) {
      if (!inline) return 0;
      const screen = cells.screenOf(pane);
      return screen ? (cells.versions.get(screen) ?? 0) * 2 + (screen === main ? 0 : 1) : -1;
    },
    overlays: () => {
      main.settle();
      return cells.overlays();
    },
    headerOverlays: (ids) => cells.headerOverlays(ids),
    subscribe(listener) {
      clock.listeners.add(listener);
      return () => clock.listeners.delete(listener);
    },
    version: () => clock.cue,
    onFrame: (listener) => void clock.frameListeners.push(listener),
    dirty: () => clock.schedule(clock.interval()),
    expedite: () => clock.expedite(),
    flushNow: () => clock.flushNow(),
    stop: () => clock.stop(),
  };
  watch(main);
  return source;
}
