/**
 * The board's private state and the helpers every group of its actions
 * shares (store/board.ts puts them together): the records, the kept
 * transcripts, the clock's wake-ups, the event taps, the questions, and
 * `publish`, which lays out, fits screens and publishes the snapshot.
 */
import { messageOf, NoSuchPanelError } from '../src/core/errors.js';
import { isLive } from '../src/core/panel/panel-state.js';
import { AGENTS_MAX_PARALLEL, MPLEX_VPANE_MAIN_PERCENT } from '../src/core/policy.js';
import { focusKept, zoomKept, type UiChange } from './board-ui.js';
import { layoutKeyOf, layoutOf, panelsOf } from './board-snapshot.js';
import type { Layout, PaneId } from '../src/core/panel/layout.js';
import { EventTaps } from './board-events.js';
import { createWakes, type Wakes } from './board-wake.js';
import type { BoardCounters, BoardOptions, BoardState } from './board-types.js';
import { dropScreen, fitScreens } from './panel-output.js';
import type { PanelRecord } from './panel-record.js';
import type { AgentRow } from './status.js';
import { BoardQuestions } from './board-questions.js';
import type { Supervisor } from './supervision.js';
import { RowsVersion } from './rows-version.js';

/** The size a panel's screen has before the layout gives it a place. */
export const DEFAULT_COLS = 80;
export const DEFAULT_ROWS = 24;

/**
 * How many finished agents' transcripts the board keeps for the agent list (prefix + w) to reopen, each as its
 * formatter's calls (src/core/panel/format-source.ts), not a screen, whose scrollback costs far more than its text.
 */
export const KEPT_TRANSCRIPTS_MAX = 8;

/** The reason shown for every panel when drawing is off and no reason was given. */
export const NO_DISPLAY = 'panels are not drawn (no display)';

/** The board's mutable scalars, changed by its actions. */
export interface BoardVars {
  nextId: number;
  lastFlushAt: number;
  /** Display failures in a row (three turn drawing off). */
  failures: number;
  /** The latest time any action brought; what a resize or a zoom publishes at. */
  seen: number;
  /** A feed op changed a header or state: the next flush publishes even without bytes. */
  feedDirty: boolean;
  mainPercent: number;
  /** What the published layout was computed from (publish reuses it while they stay the same). */
  layoutKey: string;
  drawingOff: string | null;
  /** Whether anybody sees the board (BoardActions.seenBy). */
  watched: () => boolean;
}

/** What the board's actions share. */
export interface BoardContext {
  readonly options: BoardOptions;
  readonly records: Map<number, PanelRecord>;
  /** Finished agents' records off the board whose transcripts the agent list can reopen, oldest first (at most KEPT_TRANSCRIPTS_MAX); each keeps its formatter, not its screen. */
  readonly kept: Map<number, PanelRecord>;
  readonly history: AgentRow[];
  readonly counters: BoardCounters;
  readonly maxLive: number;
  readonly vars: BoardVars;
  readonly wakes: Wakes;
  readonly events: EventTaps;
  readonly questions: BoardQuestions;
  readonly sup: Supervisor;
  /** The version of the status's rows (store/rows-version.ts). */
  readonly rows: RowsVersion;
  readonly log: (line: string) => void;
  readonly listenFailed: (err: unknown) => void;
  readonly get: () => BoardState;
  /** Publishes a change of the snapshot (store/board.ts: a copy of the whole state, kept in V8's fast mode). */
  readonly set: (change: Partial<BoardState>) => void;
  /** Queues output for a record's screen and wakes the clock. */
  queue(rec: PanelRecord, data: string): void;
  /** Takes a record off the board; a finished agent's screen is kept for the agent list, the oldest kept one dropped. */
  remove(rec: PanelRecord): void;
  /** A live agent leaves the screen; it stays supervised until it finishes. */
  detach(rec: PanelRecord): void;
  /** Drawing stops for every panel; supervision goes on. */
  disableDrawing(reason: string): void;
  /** The record of `id`; NoSuchPanelError when there is none. */
  get1(id: number): PanelRecord;
  /** Re-lays out, resizes screens to their rectangles and publishes the snapshot. */
  publish(now?: number): void;
  /**
   * Publishes the panels' rows at `now` under the published layout: only time moved (a tick that decided nothing),
   * as all a layout is made of changes through actions that publish. `panels` false: nobody sees them.
   */
  publishTime(now: number, panels?: boolean): void;
  /** Sets a UI change, if there is one. */
  setUi(change: UiChange | null): void;
}

/** Makes the board's private state for the store's `set` and `get`. */
export function boardContext(options: BoardOptions, counters: BoardCounters, set: BoardContext['set'], get: () => BoardState): BoardContext {
  const records = new Map<number, PanelRecord>();
  const kept = new Map<number, PanelRecord>();
  const history: AgentRow[] = [];
  const keptMax = options.keptTranscripts ?? KEPT_TRANSCRIPTS_MAX;
  const log = options.log ?? (() => {});
  const vars: BoardVars = {
    nextId: 1,
    lastFlushAt: -Infinity,
    failures: 0,
    seen: 0,
    feedDirty: false,
    mainPercent: MPLEX_VPANE_MAIN_PERCENT,
    layoutKey: '',
    drawingOff: options.createScreen ? (options.drawingOff ?? null) : (options.drawingOff ?? NO_DISPLAY),
    watched: () => true,
  };
  const wakes = createWakes();
  const events = new EventTaps();
  const listenFailed = (err: unknown): void => log(`event listener failed: ${messageOf(err)}`);
  if (options.onEvent) events.add(options.onEvent, listenFailed);
  const queue = (rec: PanelRecord, data: string): void => {
    if (data === '') return;
    rec.pending.append(data);
    wakes.wake();
  };
  const remove = (rec: PanelRecord): void => removeRecord(records, kept, keptMax, rec);
  const questions = new BoardQuestions({ record: (id) => records.get(id), queue, log });
  const closeQuestions = (rec: PanelRecord, why: string, now?: number): void => questions.closePanel(rec.id, why, now);
  const rows = new RowsVersion();
  const sup: Supervisor = { log, counters, history, historyMax: options.historyMax ?? 64, queue, remove, closeQuestions, historyMoved: () => rows.moved() };
  return {
    options,
    records,
    kept,
    history,
    counters,
    maxLive: options.maxLive ?? AGENTS_MAX_PARALLEL,
    vars,
    wakes,
    events,
    questions,
    sup,
    rows,
    log,
    listenFailed,
    get,
    set,
    queue,
    remove,
    detach(rec) {
      rec.closed = true;
      dropScreen(rec);
    },
    disableDrawing(reason) {
      vars.drawingOff = reason;
      for (const rec of [...records.values(), ...kept.values()]) dropScreen(rec);
      kept.clear();
      log(`drawing stopped: ${reason}; supervision goes on`);
    },
    get1(id) {
      const rec = records.get(id);
      if (!rec) throw new NoSuchPanelError(id);
      return rec;
    },
    publish(now = vars.seen) {
      publishBoard({ records, vars, get, set, remove, questions, wakes, rows }, now);
    },
    publishTime(now, panels = true) {
      publishTime({ records, vars, get, set, rows }, now, panels);
    },
    setUi(change) {
      if (change) set(change);
    },
  };
}

/**
 * A record leaves the board: a finished agent's transcript is kept for the list (the newest `keptMax`) as its
 * formatter's calls and its screen freed (reveal makes a new one); any other screen is freed.
 */
function removeRecord(records: Map<number, PanelRecord>, kept: Map<number, PanelRecord>, keptMax: number, rec: PanelRecord): void {
  records.delete(rec.id);
  rec.pending.clear();
  if (rec.kind === 'agent' && rec.screen && rec.formatter && !isLive(rec.state) && keptMax > 0) {
    rec.screen.dispose();
    rec.screen = undefined;
    kept.set(rec.id, rec);
    for (const old of kept.values()) {
      if (kept.size <= keptMax) break;
      kept.delete(old.id);
      dropScreen(old);
    }
    return;
  }
  rec.screen?.dispose();
  rec.screen = undefined;
}

/** Re-lays out (a running agent taking a finished one's place), resizes screens and publishes the snapshot. */
function publishBoard(c: Pick<BoardContext, 'records' | 'vars' | 'get' | 'set' | 'remove' | 'questions' | 'wakes' | 'rows'>, now: number): void {
  const { records, vars } = c;
  vars.seen = Math.max(vars.seen, now);
  const s = c.get();
  const zoom = zoomKept(s.zoom, (id) => records.has(id));
  const inputs = { cols: s.cols, rows: s.rows, zoom, drawingOff: vars.drawingOff, mainPercent: vars.mainPercent, statusLine: s.statusLine };
  // The layout is a pure function of its key: reuse the published one (and its identity) while the key is the same.
  let key = layoutKeyOf(records, inputs);
  let lay = key === vars.layoutKey ? s.layout : layoutOf(records, inputs);
  for (let rec = yielding(records, lay, zoom); rec !== undefined; rec = yielding(records, lay, zoom)) {
    c.remove(rec);
    key = layoutKeyOf(records, inputs);
    lay = layoutOf(records, inputs);
  }
  vars.layoutKey = key;
  if (fitScreens(records, lay)) c.wakes.wake(); // a panel's text is formatted again at its new width
  const panels = panelsOf(records, lay, vars.drawingOff, now, s.panels);
  let live = 0;
  for (const rec of records.values()) if (rec.kind === 'agent' && isLive(rec.state)) live++;
  const asking = c.questions.asking;
  // An agent off the board that ended or asks changes its row with no panel to show it.
  if (live !== s.live || asking !== s.asking) c.rows.moved();
  const focus = focusKept(s.focus, lay);
  // A flush that changed no field publishes nothing: no state copied, no subscriber run.
  const next = { panels, layout: lay, zoom, focus, drawingOff: vars.drawingOff, asking, live };
  if ((Object.keys(next) as (keyof typeof next)[]).some((k) => next[k] !== s[k])) c.set(next);
  c.rows.published();
}

/** Publishes the panels' rows at `now` under the published layout (BoardContext.publishTime). */
function publishTime(c: Pick<BoardContext, 'records' | 'vars' | 'get' | 'set' | 'rows'>, now: number, withPanels: boolean): void {
  const { records, vars, rows } = c;
  vars.seen = Math.max(vars.seen, now);
  const s = c.get();
  const panels = withPanels ? panelsOf(records, s.layout, vars.drawingOff, now, s.panels) : s.panels;
  if (panels !== s.panels) c.set({ panels });
  // Time moved every running agent's elapsed time, on the board or off it.
  for (const rec of records.values()) {
    if (rec.kind === 'agent' && isLive(rec.state)) {
      rows.moved();
      break;
    }
  }
  rows.published();
}

/**
 * A running agent wins a place over a finished one: while a live agent is hidden, the oldest shown, unzoomed
 * finished agent's panel (lingering or reopened) leaves, its screen kept for the list.
 */
function yielding(records: ReadonlyMap<number, PanelRecord>, lay: Layout, zoom: PaneId | null): PanelRecord | undefined {
  const liveHidden = lay.hidden.some((h) => {
    const r = records.get(h.id);
    return r !== undefined && r.kind === 'agent' && isLive(r.state);
  });
  if (!liveHidden) return undefined;
  for (const place of lay.panels) {
    const rec = records.get(place.id);
    if (rec && rec.kind === 'agent' && !isLive(rec.state) && place.id !== zoom) return rec;
  }
  return undefined;
}
