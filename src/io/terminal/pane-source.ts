/**
 * The PaneSource of the components (src/core/panel/pane-source.ts) over real
 * screens, and the cockpit's frame clock.
 *
 * Vocabulary:
 * - cue: at most one per FRAME_MS, only after something changed: a screen
 *   parsed output or the board published.
 * - inline mode (tests, embedding in another Ink app): the components draw
 *   the screens' rows themselves; every cue renders React.
 * - overlay mode (the cockpit): the components draw the chrome (the layout,
 *   separators, help) and leave the screens' rectangles blank; the output
 *   stage pastes the screens' cells and the panels' header rows over them
 *   (overlays()). React renders only when the structure changed
 *   (sameChrome: size, places, focus, zoom, help, scroll), not when a screen
 *   or a header's text did, so a streaming agent costs no React render and
 *   no Ink frame: Ink's frame costs 5-30 ms whatever changed
 *   (docs/performance.md).
 * - header-only frame: a publish that changed nothing but header text
 *   (headerChanges), drawn in its own turn with no other frame waiting; the
 *   frame listeners get those panels' ids, and the drawing patches their
 *   rows alone (headerOverlays, TermOutput.patch).
 */
import type { PaneSource } from '../../core/panel/pane-source.js';
import { drawn, type PaneId } from '../../core/panel/layout.js';
import type { Board, BoardState } from '../../../store/board.js';
import { headerChanges, sameChrome } from './snapshot-change.js';
import { headerRow } from '../../core/panel/header-row.js';
import { paletteOf } from '../../core/panel/colors.js';
import { parseRow, type CellRow } from './sgr-cells.js';
import { screenCells, screenRows } from './screen-rows.js';
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

/** A header row made, and what it was made from. */
interface HeaderMade {
  readonly header: string;
  readonly state: BoardState['panels'][number]['state'];
  readonly cols: number;
  readonly focused: boolean;
  readonly scrollback: number;
  readonly hidden: number;
  readonly noColor: boolean;
  readonly row: CellRow;
}

/** The last overlay made for a pane's header or body, and the rows it was cut from. */
interface Memo {
  readonly rows: readonly CellRow[];
  readonly from: number;
  readonly to: number;
  readonly overlay: Overlay;
}

/** The same rows: the same array, or one-row arrays of the same row (a header's). */
function sameRows(a: readonly CellRow[], b: readonly CellRow[]): boolean {
  return a === b || (a.length === 1 && b.length === 1 && a[0] === b[0]);
}

interface Cached<T> {
  readonly version: number;
  readonly scrollback: number;
  readonly cols: number;
  readonly rows: number;
  readonly value: T;
}

/** Makes the source for a main screen; `frameMs` may vary (a flooded main pane draws less often); `inline` draws screens through the components. */
export function createPaneSource(
  main: XtermScreen,
  frameMs: number | (() => number) = FRAME_MS,
  now: () => number = Date.now,
  inline = true,
): LivePaneSource {
  const interval = typeof frameMs === 'number' ? () => frameMs : frameMs;
  const versions = new WeakMap<XtermScreen, number>();
  const rowCache = new Map<PaneId, Cached<readonly string[]>>();
  const cellCache = new Map<PaneId, Cached<readonly CellRow[]>>();
  const headerCache = new Map<number, HeaderMade>();
  const headMemo = new Map<PaneId, Memo>();
  const bodyMemo = new Map<PaneId, Memo>();
  const listeners = new Set<() => void>();
  const frameListeners: ((headers?: readonly number[]) => void)[] = [];
  let board: Board | undefined;
  let cue = 0;
  let lastCue = -Infinity;
  let timer: Cancel | undefined;
  let timerDue = 0;
  let stopped = false;
  let chromeDirty = true;
  /** The snapshot the chrome was last compared with (undefined: none yet). */
  let lastChrome: BoardState | undefined;
  let urgentUntil = -Infinity;
  /** A frame is being drawn synchronously (a frame listener must not start another). */
  let drawingNow = false;

  const watch = (screen: XtermScreen): void => {
    versions.set(screen, 0);
    screen.term.onWriteParsed(() => {
      versions.set(screen, (versions.get(screen) ?? 0) + 1);
      if (inline) chromeDirty = true;
      if (screen === main) source.dirty();
      else panelParsed();
    });
  };

  const screenOf = (pane: PaneId): XtermScreen | undefined => {
    if (pane === 'main') return main;
    const s = board?.getState().screenOf(pane);
    return s instanceof XtermScreen ? s : undefined;
  };

  /** A cached conversion of a pane's screen, redone only when the screen changed. */
  function cached<T>(cache: Map<PaneId, Cached<T>>, pane: PaneId, scrollback: number, make: (s: XtermScreen) => T): T | undefined {
    const screen = screenOf(pane);
    if (!screen) return undefined;
    const version = versions.get(screen) ?? 0;
    const { cols, rows } = screen.term;
    const c = cache.get(pane);
    if (c && c.version === version && c.scrollback === scrollback && c.cols === cols && c.rows === rows) return c.value;
    const value = make(screen);
    cache.set(pane, { version, scrollback, cols, rows, value });
    return value;
  }

  /** A panel's header row as cells, made again only when its text, focus or width changed (compared field by field: no key string built each second). */
  const header = (view: BoardState['panels'][number], cols: number, focused: boolean, scrollback: number, hidden: number): CellRow => {
    const noColor = board?.getState().noColor ?? false;
    const c = headerCache.get(view.id);
    if (c && c.header === view.header && c.state === view.state && c.cols === cols && c.focused === focused && c.scrollback === scrollback && c.hidden === hidden && c.noColor === noColor) {
      return c.row;
    }
    const row = parseRow(headerRow(view, cols, focused, scrollback, hidden, paletteOf(noColor)), cols);
    headerCache.set(view.id, { header: view.header, state: view.state, cols, focused, scrollback, hidden, noColor, row });
    return row;
  };

  /**
   * The overlay of rows `from` to `to` of `rows` at a place: the last frame's
   * object while they and the place are the same, so the output stage looks
   * only at what changed (a silent cockpit's second: its headers' rows).
   */
  const overlay = (memo: Map<PaneId, Memo>, id: PaneId, x: number, y: number, cols: number, rows: readonly CellRow[], from: number, to: number): Overlay => {
    const m = memo.get(id);
    const o = m?.overlay;
    if (m && o && o.x === x && o.y === y && o.cols === cols && m.from === from && m.to === to && sameRows(m.rows, rows)) return o;
    const made: Overlay = { x, y, cols, rows: rows.slice(from, to) };
    memo.set(id, { rows, from, to, overlay: made });
    return made;
  };

  /** A panel's header row as an overlay at its place, through the memo the frames share. */
  const headerOverlay = (s: BoardState, view: BoardState['panels'][number], rect: { x: number; y: number; cols: number }, lastPanel: PaneId | undefined): Overlay => {
    const scrollback = view.id === s.focus ? s.scrollback : 0;
    const hidden = view.id === lastPanel ? s.layout.hidden.length : 0;
    return overlay(headMemo, view.id, rect.x, rect.y, rect.cols, [header(view, rect.cols, view.id === s.focus, scrollback, hidden)], 0, 1);
  };

  /**
   * Arms the frame timer to fire at least `minGap` after the last frame (at
   * once after a key press); an earlier due time wins. `inTurn`: when the
   * frame is due already, draw it in this loop turn rather than on a timer;
   * `headers`: the change is only these panels' header text (passed on to
   * the frame when no other frame waits).
   */
  const schedule = (minGap: number, inTurn = false, headers?: readonly number[]): void => {
    if (stopped) return;
    const t = now();
    // Just after a key press with nothing else to render, the frame is drawn now, in this very turn: the
    // echo of a typed key reaches the terminal without waiting for the event loop to come round twice.
    // So is a header's new text whose frame is due (a second's tick: its frame costs no extra turns).
    const due = t < urgentUntil || (inTurn && timer === undefined && t >= lastCue + minGap);
    if (due && !chromeDirty && !drawingNow) {
      // A frame already waiting on its timer has more to draw than these headers.
      const only = timer === undefined ? headers : undefined;
      timer?.();
      timer = undefined;
      lastCue = t;
      frame(only);
      return;
    }
    arm(t, t < urgentUntil ? t : Math.max(t, lastCue + minGap));
  };

  /** Arms the frame timer for `at` (it is `t` now), unless it is armed for that time or sooner already. */
  const arm = (t: number, at: number): void => {
    if (timer !== undefined) {
      if (at >= timerDue) return;
      timer();
    }
    timerDue = at;
    timer = after(at - t, fire);
  };

  /**
   * A panel's screen parsed output: a frame at the panels' pace, on the
   * timer even just after a key press. The flush that writes every panel's
   * output parses it in its own turn (XtermScreen parses at once), so this
   * runs up to eight times inside one flush; one frame after it draws them
   * all, with the header text the same flush changed.
   */
  const panelParsed = (): void => {
    if (stopped) return;
    const t = now();
    arm(t, Math.max(t, lastCue + Math.max(interval(), PANEL_FRAME_MS)));
  };

  const fire = (): void => {
    timer = undefined;
    if (stopped) return;
    lastCue = now();
    if (chromeDirty) {
      chromeDirty = false;
      cue++;
      for (const l of [...listeners]) l();
    }
    // React's update lands in a microtask; draw after it.
    setImmediate(() => {
      if (!stopped) frame();
    });
  };

  /** Runs the frame listeners. */
  const frame = (...headers: [] | [readonly number[] | undefined]): void => {
    drawingNow = true;
    try {
      for (const l of frameListeners) l(...headers);
    } finally {
      drawingNow = false;
    }
  };

  const source: LivePaneSource = {
    createScreen(cols, rows) {
      const s = new XtermScreen(cols, rows);
      watch(s);
      return s;
    },
    attach(b) {
      board = b;
      b.subscribe((state, prev) => {
        // A flush that only fed screens: their parsed output schedules the frame (watch), nothing to do here.
        if (
          state.panels === prev.panels &&
          state.layout === prev.layout &&
          state.focus === prev.focus &&
          state.zoom === prev.zoom &&
          state.help === prev.help &&
          state.scrollback === prev.scrollback &&
          state.cols === prev.cols &&
          state.rows === prev.rows &&
          state.drawingOff === prev.drawingOff
        ) {
          return;
        }
        // Forget the panels that are gone, so the caches stay bounded.
        if (rowCache.size + cellCache.size + headerCache.size > 3 * (state.panels.length + 1)) {
          const ids = new Set<PaneId>(['main', ...state.panels.map((p) => p.id)]);
          for (const c of [rowCache, cellCache, headMemo, bodyMemo]) for (const k of c.keys()) if (!ids.has(k)) c.delete(k);
          for (const k of headerCache.keys()) if (!ids.has(k)) headerCache.delete(k);
        }
        const structural = inline || lastChrome === undefined || !sameChrome(state, lastChrome);
        lastChrome = state;
        if (structural) {
          chromeDirty = true;
          source.dirty();
        } else schedule(Math.max(interval(), PANEL_FRAME_MS), true, headerChanges(state, prev)); // a header's text: an overlay, at the panels' pace

      });
    },
    rows(pane, scrollback) {
      if (!inline) return [];
      return cached(rowCache, pane, scrollback, (s) => screenRows(s.term, scrollback)) ?? [];
    },
    paneVersion(pane) {
      if (!inline) return 0;
      const screen = screenOf(pane);
      return screen ? (versions.get(screen) ?? 0) * 2 + (screen === main ? 0 : 1) : -1;
    },
    overlays() {
      const s = board?.getState();
      if (!s || s.help) return [];
      const out: Overlay[] = [];
      const lastPanel = s.layout.zoomed ? undefined : s.layout.panels.at(-1)?.id;
      for (const { id, rect } of drawn(s.layout).panes) {
        const scrollback = id === s.focus ? s.scrollback : 0;
        const cells = cached(cellCache, id, scrollback, (sc) => screenCells(sc.term, scrollback));
        if (!cells) continue;
        // A panel's row 0 is its header; a scrolled-back main pane's row 0 says so (both chrome).
        if (id !== 'main') {
          const view = s.panels.find((p) => p.id === id);
          if (view) out.push(headerOverlay(s, view, rect, lastPanel));
        }
        const skip = id !== 'main' ? 0 : scrollback > 0 ? 1 : 0;
        const top = id === 'main' ? rect.y : rect.y + 1;
        out.push(overlay(bodyMemo, id, rect.x, top + skip, rect.cols, cells, skip, rect.rows - (top - rect.y)));
      }
      return out;
    },
    headerOverlays(ids) {
      const s = board?.getState();
      if (!s || s.help) return undefined;
      const lastPanel = s.layout.zoomed ? undefined : s.layout.panels.at(-1)?.id;
      const out: Overlay[] = [];
      for (const { id, rect } of drawn(s.layout).panes) {
        if (id === 'main' || !ids.includes(id)) continue;
        const view = s.panels.find((p) => p.id === id);
        if (view) out.push(headerOverlay(s, view, rect, lastPanel));
      }
      return out;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    version: () => cue,
    onFrame(listener) {
      frameListeners.push(listener);
    },
    dirty() {
      schedule(interval());
    },
    expedite() {
      urgentUntil = now() + EXPEDITE_MS;
    },
    flushNow() {
      if (timer === undefined) return;
      timer();
      fire();
    },
    stop() {
      stopped = true;
      timer?.();
      listeners.clear();
    },
  };
  watch(main);
  return source;
}
