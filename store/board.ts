/**
 * The board: one zustand vanilla store that opens panels, turns agent events
 * into screen bytes, flushes them in coalesced steps and supervises every
 * agent on its clock, shown or not (seed 001, sections 4.1, 4.2 and 6).
 * This file holds the store, its private state and its actions; what the
 * actions apply lives beside it: supervision.ts (a record's life: clocks,
 * heartbeats, holds, stops, its end), panel-output.ts (screens and the output
 * queued for them), board-snapshot.ts (what is published), feed-panes.ts
 * (vpane_* panes and their lease) and board-ui.ts (focus, zoom, scrollback,
 * help, the window's size).
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
import { AgentsFullError, messageOf, NoSuchPanelError, RequestError } from '../src/core/errors.js';
import { areaRows, layout as computeLayout } from '../src/core/panel/layout.js';
import { assertNever } from '../src/core/never.js';
import { isLive, watchDueAt, watchdog, type FinalState } from '../src/core/panel/panel-state.js';
import { AGENTS_MAX_PARALLEL, MPLEX_VPANE_MAIN_PERCENT, ORCH_FLUSH_INTERVAL } from '../src/core/policy.js';
import {
  focusAfterClose,
  focusKept,
  focusMoved,
  focusSetTo,
  helpToggled,
  resized,
  revealed,
  scrolled,
  scrolledLines,
  UI_START,
  unzoomed,
  zoomKept,
  zoomToggled,
  type UiChange,
} from './board-ui.js';
import { layoutKeyOf, layoutOf, panelsOf } from './board-snapshot.js';
import { EventTaps } from './board-events.js';
import { createWakes } from './board-wake.js';
import type { Board, BoardCounters, BoardOptions, BoardState } from './board-types.js';
import { feedChange, feedRefusal, leaseDueAt, leaseOf, mainPercentOf } from './feed-panes.js';
import { drain, dropScreen, fitScreens, openScreen, waiting } from './panel-output.js';
import { rowOf, type PanelRecord } from './panel-record.js';
import { statusOf, type AgentRow } from './status.js';
import { BoardQuestions } from './board-questions.js';
import {
  applyDecision,
  callHook,
  endRecord,
  heard,
  holdRecord,
  openRecord,
  requestStop,
  resumeRecord,
  type Supervisor,
} from './supervision.js';

export type * from './board-types.js';

const DEFAULT_COLS = 80;
const DEFAULT_ROWS = 24;

/**
 * How many finished agents' screens the board keeps after their panels left,
 * so the agent list (prefix + w) can reopen their transcripts: the newest
 * eight, each at most its screen's scrollback (src/io/terminal/screen.ts).
 */
export const KEPT_TRANSCRIPTS_MAX = 8;

/** The reason shown for every panel when drawing is off and no reason was given. */
export const NO_DISPLAY = 'panels are not drawn (no display)';

/** Creates a board; it works without React and without a screen. */
export function createBoard(options: BoardOptions = {}): Board & { counters: BoardCounters } {
  const records = new Map<number, PanelRecord>();
  const history: AgentRow[] = [];
  const maxLive = options.maxLive ?? AGENTS_MAX_PARALLEL;
  const keptMax = options.keptTranscripts ?? KEPT_TRANSCRIPTS_MAX;
  const log = options.log ?? (() => {});
  const counters: BoardCounters = { flushes: 0, bytesWritten: 0, events: 0, displayFailures: 0, hookErrors: 0 };
  let nextId = 1;
  let lastFlushAt = -Infinity;
  let failures = 0;
  /** The latest time any action brought; what a resize or a zoom publishes at. */
  let seen = 0;
  /** A feed op changed a header or state: the next flush publishes even without bytes. */
  let feedDirty = false;
  let mainPercent = MPLEX_VPANE_MAIN_PERCENT;
  /** What the published layout was computed from (publish reuses it while they stay the same). */
  let layoutKey = '';
  let drawingOff: string | null = options.createScreen ? (options.drawingOff ?? null) : (options.drawingOff ?? NO_DISPLAY);
  const wakes = createWakes();
  const events = new EventTaps();
  const listenFailed = (err: unknown): void => log(`event listener failed: ${messageOf(err)}`);
  if (options.onEvent) events.add(options.onEvent, listenFailed);
  /** Queues output for a record's screen and wakes the clock. */
  const queue = (rec: PanelRecord, data: string): void => {
    if (data === '') return;
    rec.pending.append(data);
    wakes.wake();
  };
  /** Finished agents' records off the board whose screens the agent list can reopen, oldest first (at most KEPT_TRANSCRIPTS_MAX). */
  const kept = new Map<number, PanelRecord>();
  /** Takes a record off the board; a finished agent's screen is kept for the agent list, the oldest kept one dropped. */
  const remove = (rec: PanelRecord): void => {
    records.delete(rec.id);
    rec.pending.clear();
    if (rec.kind === 'agent' && rec.screen && !isLive(rec.state) && keptMax > 0) {
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
  };
  /** A live agent leaves the screen; it stays supervised until it finishes. */
  const detach = (rec: PanelRecord): void => {
    rec.closed = true;
    dropScreen(rec);
  };
  const questions = new BoardQuestions({ record: (id) => records.get(id), queue, log });
  const closeQuestions = (rec: PanelRecord, why: string): void => questions.closePanel(rec.id, why);
  const sup: Supervisor = { log, counters, history, historyMax: options.historyMax ?? 64, queue, remove, closeQuestions };

  const disableDrawing = (reason: string): void => {
    drawingOff = reason;
    for (const rec of [...records.values(), ...kept.values()]) dropScreen(rec);
    kept.clear();
    log(`drawing stopped: ${reason}; supervision goes on`);
  };

  const get1 = (id: number): PanelRecord => {
    const rec = records.get(id);
    if (!rec) throw new NoSuchPanelError(id);
    return rec;
  };

  const store = createStore<BoardState>()((set, get) => {
    /** Re-lays out, resizes screens to their rectangles and publishes the snapshot. */
    const publish = (now: number = seen): void => {
      seen = Math.max(seen, now);
      const s = get();
      const zoom = zoomKept(s.zoom, (id) => records.has(id));
      const inputs = { cols: s.cols, rows: s.rows, zoom, drawingOff, mainPercent, statusLine: s.statusLine };
      // The layout is a pure function of its key: reuse the published one (and its identity) while the key is the same.
      const key = layoutKeyOf(records, inputs);
      const lay = key === layoutKey ? s.layout : layoutOf(records, inputs);
      layoutKey = key;
      fitScreens(records, lay);
      const panels = panelsOf(records, lay, drawingOff, now, s.panels);
      set({ panels, layout: lay, zoom, focus: focusKept(s.focus, lay), drawingOff, asking: questions.asking });
    };

    /** Sets a UI change, if there is one. */
    const setUi = (change: UiChange | null): void => {
      if (change) set(change);
    };
    /** How far the focused pane's screen can scroll back. */
    const focusedHistory = (): number => {
      const focus = get().focus;
      return (focus === 'main' ? options.mainHistory?.() : records.get(focus)?.screen?.history?.()) ?? Infinity;
    };

    return {
      panels: [],
      layout: computeLayout({ cols: options.cols ?? DEFAULT_COLS, rows: options.rows ?? DEFAULT_ROWS, panels: [], statusLine: options.statusLine ?? false }),
      cols: options.cols ?? DEFAULT_COLS,
      rows: options.rows ?? DEFAULT_ROWS,
      drawingOff,
      noColor: options.noColor ?? false,
      statusLine: options.statusLine ?? false,
      asking: 0,
      ...UI_START,

      open(spec, now) {
        const kind = spec.kind ?? 'agent';
        const s = get();
        if (kind === 'agent') {
          const live = [...records.values()].filter((r) => r.kind === 'agent' && isLive(r.state)).length;
          if (live >= maxLive) throw new AgentsFullError(live, maxLive);
        } else {
          const refusal = feedRefusal(records, { cols: s.cols, rows: areaRows(s.rows, s.statusLine), drawingOff });
          if (refusal !== null) throw new RequestError(refusal);
          mainPercent = mainPercentOf(spec, mainPercent);
        }
        const id = nextId++;
        const rec = openRecord(id, spec, now, { cols: DEFAULT_COLS, rows: DEFAULT_ROWS });
        records.set(id, rec);
        if (drawingOff === null && options.createScreen) {
          // Size it where the layout will put it, so the opening line wraps right.
          const lay = layoutOf(records, { cols: s.cols, rows: s.rows, zoom: null, drawingOff, mainPercent, statusLine: s.statusLine });
          const place = lay.panels.find((p) => p.id === id)?.rect ?? { cols: DEFAULT_COLS, rows: DEFAULT_ROWS };
          const failed = openScreen(rec, place, options.createScreen);
          if (failed !== null) disableDrawing(failed);
          if (rec.formatter && rec.task) queue(rec, rec.formatter.opening(rec.task));
        }
        setUi(unzoomed(s));
        wakes.notify(); // a new record: the watchdog ticks again
        publish(now);
        return id;
      },

      emit(id, event, now) {
        if (events.taps.length !== 0) events.tell(id, event, now);
        const rec = records.get(id);
        if (!rec || rec.kind !== 'agent' || !isLive(rec.state)) return;
        counters.events++;
        heard(rec, event, now);
        if (rec.formatter) {
          queue(rec, rec.formatter.event(event));
          if (rec.formatter.holding) wakes.wake(); // a held word is released by a later flush
        }
      },

      write(id, data, now) {
        const rec = get1(id);
        rec.lastEventAt = now;
        if (rec.screen) queue(rec, data);
      },

      feed(id, op, now) {
        const rec = get1(id);
        rec.lastEventAt = now;
        feedDirty = true;
        wakes.wake();
        Object.assign(rec, feedChange(rec, op, now));
      },

      hold(id, service, now) {
        if (holdRecord(get1(id), service, now)) publish(now);
      },

      resume(id, now) {
        const rec = records.get(id);
        if (!rec || !resumeRecord(rec, now)) return;
        if (questions.openOf(id)) rec.state = 'asking'; // held while asking: back to waiting for the user
        publish(now);
      },

      tag(id, text, now) {
        const rec = records.get(id);
        if (!rec || rec.kind === 'feed' || rec.tag === text) return;
        rec.tag = text;
        publish(now);
      },

      finish(id, state, summary, now) {
        const rec = records.get(id);
        if (!rec || !isLive(rec.state)) return rec?.state as FinalState | undefined;
        const final = endRecord(sup, rec, state, summary, now);
        publish(now);
        return final;
      },

      setCancel(id, soft, hard) {
        const rec = get1(id);
        if (rec.soft) return;
        rec.soft = soft;
        if (hard) rec.hard = hard;
        // A stop asked for before the owner was ready still reaches it.
        if (rec.stop && !rec.softCalled) {
          rec.softCalled = true;
          callHook(sup, soft, rec.stop.reason, id);
        }
      },

      cancel(id, reason, now, cause = 'owner') {
        const rec = records.get(id);
        if (!rec) return false;
        const asked = requestStop(sup, rec, cause, reason, now);
        if (asked) publish(now);
        return asked;
      },

      closeByUser(id, now) {
        const rec = records.get(id);
        if (!rec || rec.closed) return false;
        setUi(focusAfterClose(get(), id));
        if (rec.kind === 'agent' && isLive(rec.state)) {
          requestStop(sup, rec, 'user', 'closed by the user', now);
          detach(rec);
        } else remove(rec);
        publish(now);
        return true;
      },

      close(id, now) {
        const rec = records.get(id);
        if (!rec) return false;
        if (rec.kind === 'agent' && isLive(rec.state)) detach(rec);
        else remove(rec);
        publish(now);
        return true;
      },

      shutdown(reason, now) {
        for (const rec of records.values()) requestStop(sup, rec, 'shutdown', reason, now);
        publish(now);
      },

      ask(id, ask, now, reply) {
        const qid = questions.ask(id, ask, now, reply);
        publish(now);
        return qid;
      },

      answer(qid, key, by, now) {
        const answered = questions.answer(qid, key, by, now);
        publish(now);
        return answered;
      },

      questions(now) {
        return questions.list(now);
      },

      questionOf(id) {
        return questions.openOf(id);
      },

      onAsked(listener) {
        return questions.onAsked(listener);
      },

      tick(now) {
        questions.tick(now);
        for (const rec of [...records.values()]) {
          if (rec.kind === 'agent') {
            for (const d of watchdog(rec, now)) applyDecision(sup, rec, d, now);
            continue;
          }
          const lease = leaseOf(rec, now);
          if (lease === null) continue;
          switch (lease.type) {
            case 'remove':
              remove(rec);
              break;
            case 'orphan':
              Object.assign(rec, lease.change);
              break;
            default:
              assertNever(lease);
          }
        }
        publish(now);
      },

      flush(now) {
        if (now - lastFlushAt < ORCH_FLUSH_INTERVAL) return false;
        lastFlushAt = now;
        wakes.flushed();
        const { wrote, failures: inARow, failed } = drain(records.values(), now, failures, sup);
        failures = inARow;
        if (failed !== undefined) disableDrawing(failed);
        if (wrote) counters.flushes++;
        if (wrote || feedDirty || drawingOff !== get().drawingOff) {
          feedDirty = false;
          publish(now);
        }
        return wrote;
      },

      pending() {
        return feedDirty || drawingOff !== get().drawingOff || waiting(records.values());
      },

      active() {
        return records.size > 0;
      },

      nextDue(now) {
        let due: number | undefined;
        for (const rec of records.values()) {
          const at = rec.kind === 'agent' ? watchDueAt(rec, now) : leaseDueAt(rec);
          if (at !== undefined && (due === undefined || at < due)) due = at;
        }
        return due;
      },

      onWake(listener) {
        return wakes.onWake(listener);
      },

      listen(listener, onError = listenFailed) {
        return events.add(listener, onError);
      },

      resize(cols, rows) {
        set(resized(cols, rows));
        publish();
      },

      status(now) {
        return statusOf([...records.values()].map((r) => rowOf(r, now)), history, records);
      },

      screenOf(id) {
        return records.get(id)?.screen ?? kept.get(id)?.screen;
      },

      focusMove(to) {
        setUi(focusMoved(get(), to));
      },

      focusSet(pane) {
        setUi(focusSetTo(get(), pane));
      },

      reveal(id, now) {
        const rec = records.get(id);
        if (rec && !rec.closed && rec.screen) {
          set(revealed(id));
          publish(now);
          return true;
        }
        const back = kept.get(id);
        if (!back) return false;
        // Back on the board until the user closes it again: no second linger under a reader's eyes.
        kept.delete(id);
        back.closeAt = undefined;
        records.set(id, back);
        set(revealed(id));
        publish(now);
        return true;
      },

      transcriptKept(id) {
        const rec = records.get(id);
        return rec ? !rec.closed && rec.screen !== undefined : kept.has(id);
      },

      zoomToggle() {
        set(zoomToggled(get()));
        publish();
      },

      helpToggle() {
        set(helpToggled(get()));
      },

      scroll(pages) {
        setUi(scrolled(get(), pages, focusedHistory()));
      },

      scrollLines(lines) {
        setUi(scrolledLines(get(), lines, focusedHistory()));
      },
    };
  });

  return Object.assign(store, { counters });
}
