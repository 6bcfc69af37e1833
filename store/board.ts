/**
 * The board: one zustand vanilla store that opens panels, turns agent events
 * into screen bytes, flushes them in coalesced steps and supervises every
 * agent on its clock, shown or not (seed 001, sections 4.1, 4.2 and 6).
 *
 * Vocabulary:
 * - record: the board's mutable bookkeeping for one panel (PanelRecord). It is
 *   the single source of truth; React never sees it.
 * - snapshot: the immutable `panels`/`layout` the store publishes on open,
 *   finish, close, every tick and every flush that wrote something. Selectors
 *   read only the snapshot, so a streaming agent costs at most one store
 *   update per flush, never one per token.
 * - on the board: a record that wants a place on screen (live or lingering,
 *   not closed by the user). Whether it gets one is the layout's decision.
 * - shown / hidden: a record on the board with or without a rectangle; a
 *   hidden one keeps its reason and is supervised exactly like a shown one.
 *
 * Every action that depends on time takes `now` (ms); the board never reads
 * a clock. src/io/board-clock.ts drives tick() and flush() from real time.
 */
import { createStore } from 'zustand/vanilla';
import { AgentsFullError, NoSuchPanelError, RequestError, VPANE_ERRORS } from '../src/core/errors.js';
import { Formatter } from '../src/core/formatter.js';
import { fits, focusOrder, layout as computeLayout, neighbour, type Layout, type PaneId } from '../src/core/layout.js';
import { assertNever } from '../src/core/never.js';
import {
  afterEvent,
  finalState,
  isLive,
  stopState,
  watchdog,
  type Decision,
  type FinalState,
  type StopCause,
} from '../src/core/panel-state.js';
import { PendingOutput } from '../src/core/pending.js';
import {
  AGENTS_MAX_PARALLEL,
  MPLEX_PANES_MAX,
  MPLEX_VPANE_LEASE,
  MPLEX_VPANE_LINGER_MAX,
  MPLEX_VPANE_MAIN_PERCENT,
  MPLEX_VPANE_MAX,
  MPLEX_VPANE_ORPHAN_LINGER,
  ORCH_DISPLAY_FAILURES_MAX,
  ORCH_FLUSH_INTERVAL,
  ORCH_LABEL_MAX,
  ORCH_LINGER,
  ORCH_WORD_RELEASE,
} from '../src/core/policy.js';
import type { Board, BoardCounters, BoardOptions, BoardState, StopHook } from './board-types.js';
import { clip, clipHeader, rowOf, viewOf, type PanelRecord } from './panel-record.js';
import { statusOf, type AgentRow } from './status.js';

export type * from './board-types.js';

const DEFAULT_COLS = 80;
const DEFAULT_ROWS = 24;

/** The reason shown for every panel when drawing is off and no reason was given. */
export const NO_DISPLAY = 'panels are not drawn (no display)';

/** Creates a board; it works without React and without a screen. */
export function createBoard(options: BoardOptions = {}): Board & { counters: BoardCounters } {
  const records = new Map<number, PanelRecord>();
  const history: AgentRow[] = [];
  const historyMax = options.historyMax ?? 64;
  const maxLive = options.maxLive ?? AGENTS_MAX_PARALLEL;
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
  const wakeListeners = new Set<() => void>();
  /** A wake-up was sent since the last flush: the clock is armed, do not call it again for every token. */
  let woken = false;
  const notify = (): void => {
    for (const l of [...wakeListeners]) l();
  };
  /** Output became pending: tells the clock once until the next flush (which it then arms). */
  const wake = (): void => {
    if (woken) return;
    woken = true;
    notify();
  };
  /** Queues output for a record's screen and wakes the clock. */
  const queue = (rec: PanelRecord, data: string): void => {
    if (data === '') return;
    rec.pending.append(data);
    wake();
  };

  const onBoard = (): PanelRecord[] => [...records.values()].filter((r) => !r.closed);
  const layoutFor = (cols: number, rows: number, zoom: PaneId | null): Layout =>
    computeLayout({
      cols,
      rows,
      panels: drawingOff === null ? onBoard().map((r) => r.id) : [],
      ...(zoom === null ? {} : { zoom }),
      mainPercent,
    });

  const store = createStore<BoardState>()((set, get) => {
    /** Re-lays out, resizes screens to their rectangles and publishes the snapshot. */
    const publish = (now: number = seen, frameBump = false): void => {
      seen = Math.max(seen, now);
      const s = get();
      let zoom = s.zoom;
      if (typeof zoom === 'number' && !records.get(zoom)) zoom = null;
      // The layout is a pure function of these: reuse the published one (and its identity) when they are the same.
      const ids = drawingOff === null ? onBoard().map((r) => r.id) : [];
      const key = `${s.cols}x${s.rows}|${String(zoom)}|${mainPercent}|${ids.join(',')}`;
      const lay = key === layoutKey ? s.layout : layoutFor(s.cols, s.rows, zoom);
      layoutKey = key;
      for (const place of lay.panels) {
        const rec = records.get(place.id);
        if (!rec) continue;
        const rect = lay.zoomed?.id === place.id ? lay.zoomed.rect : place.rect;
        sizeScreen(rec, rect.cols, Math.max(1, rect.rows - 1));
      }
      const hidden = new Map(lay.hidden.map((h) => [h.id, h.reason]));
      const views = onBoard().map((r) => viewOf(r, now, drawingOff ?? hidden.get(r.id)));
      // Views of unchanged records are the same objects: keep the array too, so selectors see no change.
      const panels = views.length === s.panels.length && views.every((v, i) => v === s.panels[i]) ? s.panels : views;
      let focus = s.focus;
      if (typeof focus === 'number' && !lay.panels.some((p) => p.id === focus)) focus = 'main';
      set({ panels, layout: lay, zoom, focus, drawingOff, frame: frameBump ? s.frame + 1 : s.frame });
    };

    const sizeScreen = (rec: PanelRecord, cols: number, rows: number): void => {
      if (rec.cols === cols && rec.rows === rows) return;
      rec.cols = cols;
      rec.rows = rows;
      rec.screen?.resize(cols, rows);
      rec.formatter?.setWidth(cols);
    };

    const get1 = (id: number): PanelRecord => {
      const rec = records.get(id);
      if (!rec) throw new NoSuchPanelError(id);
      return rec;
    };

    const callHook = (hook: StopHook | undefined, reason: string, id: number): void => {
      if (!hook) return;
      try {
        hook(reason);
      } catch (err) {
        counters.hookErrors++;
        log(`panel ${id}: stop hook failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    };

    const requestStop = (rec: PanelRecord, cause: StopCause, reason: string, now: number): boolean => {
      if (rec.kind !== 'agent' || !isLive(rec.state) || rec.stop) return false;
      rec.stop = { cause, reason, at: now };
      if (rec.soft && !rec.softCalled) {
        rec.softCalled = true;
        callHook(rec.soft, reason, rec.id);
      }
      return true;
    };

    const remove = (rec: PanelRecord): void => {
      records.delete(rec.id);
      rec.screen?.dispose();
      rec.screen = undefined;
      rec.pending.clear();
    };

    const end = (rec: PanelRecord, state: FinalState, summary: string, now: number): FinalState => {
      const final = rec.kind === 'agent' ? finalState(state, rec.stop) : state;
      rec.state = final;
      rec.finishedAt = now;
      rec.summary = summary;
      if (rec.formatter) {
        queue(rec, rec.formatter.release());
        queue(rec, rec.formatter.footer(final, now - rec.startedAt, summary));
      }
      rec.closeAt = now + ORCH_LINGER;
      history.push(rowOf(rec, now));
      if (history.length > historyMax) history.splice(0, history.length - historyMax);
      if (rec.closed) remove(rec);
      return final;
    };

    const apply = (rec: PanelRecord, decision: Decision, now: number): void => {
      switch (decision.type) {
        case 'idle':
          rec.state = 'idle';
          return;
        case 'soft_stop':
          requestStop(rec, decision.cause, decision.reason, now);
          return;
        case 'hard_stop':
          if (!rec.stop) return;
          rec.stop.hardAt = now;
          if (rec.hard && !rec.hardCalled) {
            rec.hardCalled = true;
            callHook(rec.hard, rec.stop.reason, rec.id);
          }
          return;
        case 'force_finish': {
          const reason = rec.stop?.reason ?? 'stopped';
          log(`panel ${rec.id}: the agent did not stop after a hard stop; finished by the board`);
          end(rec, stopState(rec.stop?.cause ?? 'owner'), `${reason}; the agent did not stop`, now);
          return;
        }
        case 'remove':
          remove(rec);
          return;
        default:
          assertNever(decision);
      }
    };

    /** The lease of a feed pane (section 3.3). */
    const superviseFeed = (rec: PanelRecord, now: number): void => {
      if (rec.closeAt !== undefined) {
        if (now >= rec.closeAt) remove(rec);
        return;
      }
      if (now - rec.lastEventAt >= MPLEX_VPANE_LEASE) {
        rec.header = clipHeader(`owner gone: ${rec.header.trim()}`);
        rec.state = 'failed';
        rec.closeAt = now + MPLEX_VPANE_ORPHAN_LINGER;
      }
    };

    const disableDrawing = (reason: string): void => {
      drawingOff = reason;
      for (const rec of records.values()) {
        rec.screen?.dispose();
        rec.screen = undefined;
        rec.formatter = undefined;
        rec.pending.clear();
      }
      log(`drawing stopped: ${reason}; supervision goes on`);
    };

    const moveFocus = (to: PaneId): void => {
      const s = get();
      if (s.focus === to) return;
      set({ focus: to, scrollback: 0, zoom: s.zoom === null ? null : to });
    };

    return {
      panels: [],
      layout: computeLayout({ cols: options.cols ?? DEFAULT_COLS, rows: options.rows ?? DEFAULT_ROWS, panels: [] }),
      cols: options.cols ?? DEFAULT_COLS,
      rows: options.rows ?? DEFAULT_ROWS,
      drawingOff,
      focus: 'main',
      zoom: null,
      help: false,
      scrollback: 0,
      frame: 0,

      open(spec, now) {
        const kind = spec.kind ?? 'agent';
        const s = get();
        if (kind === 'agent') {
          const live = [...records.values()].filter((r) => r.kind === 'agent' && isLive(r.state)).length;
          if (live >= maxLive) throw new AgentsFullError(live, maxLive);
        } else {
          const feeds = [...records.values()].filter((r) => r.kind === 'feed').length;
          if (feeds >= MPLEX_VPANE_MAX) throw new RequestError(VPANE_ERRORS.tooManyFeedPanes);
          if (records.size + 1 >= MPLEX_PANES_MAX) throw new RequestError(VPANE_ERRORS.tooManyPanes);
          if (drawingOff !== null) throw new RequestError(`feed panes are not drawn: ${drawingOff}`);
          const reason = fits(s.cols, s.rows, onBoard().length + 1);
          if (reason !== null) throw new RequestError(reason);
          if (spec.mainPercent !== undefined && spec.mainPercent >= 1 && spec.mainPercent <= 99) {
            mainPercent = Math.floor(spec.mainPercent);
          }
        }
        const id = nextId++;
        const rec: PanelRecord = {
          id,
          kind,
          label: clip(spec.label, ORCH_LABEL_MAX),
          task: spec.task ?? '',
          startedAt: now,
          ...(spec.timeoutMs === undefined ? {} : { deadline: now + spec.timeoutMs, timeoutMs: spec.timeoutMs }),
          state: kind === 'agent' ? 'running' : (spec.state ?? 'running'),
          lastEventAt: now,
          lastTextAt: now,
          tools: 0,
          tokens: 0,
          header: clipHeader(spec.header ?? ` ● ${spec.label}`),
          closed: false,
          pending: new PendingOutput(),
          cols: DEFAULT_COLS,
          rows: DEFAULT_ROWS,
          softCalled: false,
          hardCalled: false,
        };
        records.set(id, rec);
        if (drawingOff === null && options.createScreen) {
          // Size it where the layout will put it, so the opening line wraps right.
          const place = layoutFor(s.cols, s.rows, null).panels.find((p) => p.id === id);
          rec.cols = Math.max(1, place?.rect.cols ?? DEFAULT_COLS);
          rec.rows = Math.max(1, (place?.rect.rows ?? DEFAULT_ROWS) - 1);
          try {
            rec.screen = options.createScreen(rec.cols, rec.rows);
          } catch (err) {
            disableDrawing(`display failed: ${err instanceof Error ? err.message : String(err)}`);
          }
          if (rec.screen && kind === 'agent') {
            rec.formatter = new Formatter(rec.cols);
            if (rec.task) queue(rec, rec.formatter.opening(rec.task));
          }
        }
        // Opening a panel un-zooms the window (seed 001, section 3.3).
        if (s.zoom !== null) set({ zoom: null, scrollback: 0 });
        notify(); // a new record: the watchdog ticks again
        publish(now);
        return id;
      },

      emit(id, event, now) {
        const rec = records.get(id);
        if (!rec || rec.kind !== 'agent' || !isLive(rec.state)) return;
        counters.events++;
        rec.lastEventAt = now;
        rec.state = afterEvent(rec.state);
        switch (event.type) {
          case 'tool_start':
            rec.tools++;
            break;
          case 'usage':
            rec.tokens = event.tokens;
            break;
          case 'text':
          case 'thought':
            rec.lastTextAt = now;
            break;
          default:
            break;
        }
        if (rec.formatter) {
          queue(rec, rec.formatter.event(event));
          if (rec.formatter.holding) wake(); // a held word is released by a later flush
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
        wake();
        if (op.header !== undefined) rec.header = clipHeader(op.header);
        if (op.state !== undefined) rec.state = op.state;
        if (op.done && rec.closeAt === undefined) {
          const linger = Math.min(Math.max(0, (op.linger ?? ORCH_LINGER / 1000) * 1000), MPLEX_VPANE_LINGER_MAX);
          rec.closeAt = now + linger;
          rec.finishedAt = now;
        }
      },

      hold(id, service, now) {
        const rec = get1(id);
        if (rec.kind !== 'agent' || !isLive(rec.state) || rec.held) return;
        rec.held = { service, since: now };
        rec.state = 'waiting';
        publish(now);
      },

      resume(id, now) {
        const rec = records.get(id);
        if (!rec?.held || rec.state !== 'waiting') return;
        if (rec.deadline !== undefined) rec.deadline += now - rec.held.since;
        rec.held = undefined;
        rec.state = 'running';
        rec.lastEventAt = now;
        publish(now);
      },

      finish(id, state, summary, now) {
        const rec = records.get(id);
        if (!rec || !isLive(rec.state)) return rec?.state as FinalState | undefined;
        const final = end(rec, state, summary, now);
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
          callHook(soft, rec.stop.reason, id);
        }
      },

      cancel(id, reason, now, cause = 'owner') {
        const rec = records.get(id);
        if (!rec) return false;
        const asked = requestStop(rec, cause, reason, now);
        if (asked) publish(now);
        return asked;
      },

      closeByUser(id, now) {
        const rec = records.get(id);
        if (!rec || rec.closed) return false;
        if (rec.kind === 'agent' && isLive(rec.state)) {
          requestStop(rec, 'user', 'closed by the user', now);
          rec.closed = true;
          rec.screen?.dispose();
          rec.screen = undefined;
          rec.formatter = undefined;
          rec.pending.clear();
        } else {
          remove(rec);
        }
        publish(now);
        return true;
      },

      close(id, now) {
        const rec = records.get(id);
        if (!rec) return false;
        if (rec.kind === 'agent' && isLive(rec.state)) {
          rec.closed = true;
          rec.screen?.dispose();
          rec.screen = undefined;
          rec.formatter = undefined;
          rec.pending.clear();
        } else remove(rec);
        publish(now);
        return true;
      },

      shutdown(reason, now) {
        for (const rec of records.values()) requestStop(rec, 'shutdown', reason, now);
        publish(now);
      },

      tick(now) {
        for (const rec of [...records.values()]) {
          if (rec.kind === 'feed') superviseFeed(rec, now);
          else for (const d of watchdog(rec, now)) apply(rec, d, now);
        }
        publish(now);
      },

      flush(now) {
        if (now - lastFlushAt < ORCH_FLUSH_INTERVAL) return false;
        lastFlushAt = now;
        woken = false;
        let wrote = false;
        for (const rec of records.values()) {
          if (!rec.screen) continue;
          if (rec.formatter?.holding && now - rec.lastTextAt >= ORCH_WORD_RELEASE) {
            rec.pending.append(rec.formatter.release());
          }
          const chunk = rec.pending.take();
          if (chunk === '') continue;
          try {
            rec.screen.write(chunk);
            counters.bytesWritten += chunk.length;
            failures = 0;
            wrote = true;
          } catch (err) {
            counters.displayFailures++;
            failures++;
            log(`panel ${rec.id}: screen write failed: ${err instanceof Error ? err.message : String(err)}`);
            if (failures >= ORCH_DISPLAY_FAILURES_MAX) {
              disableDrawing(`display failed ${failures} times: ${err instanceof Error ? err.message : String(err)}`);
              break;
            }
          }
        }
        if (wrote) counters.flushes++;
        if (wrote || feedDirty || drawingOff !== get().drawingOff) {
          feedDirty = false;
          publish(now, wrote);
        }
        return wrote;
      },

      pending() {
        if (feedDirty || drawingOff !== get().drawingOff) return true;
        for (const rec of records.values()) {
          if (rec.screen && (rec.pending.size > 0 || rec.formatter?.holding)) return true;
        }
        return false;
      },

      active() {
        return records.size > 0;
      },

      onWake(listener) {
        wakeListeners.add(listener);
        return () => {
          wakeListeners.delete(listener);
        };
      },

      resize(cols, rows) {
        set({ cols: Math.max(1, Math.floor(cols)), rows: Math.max(1, Math.floor(rows)) });
        publish();
      },

      status(now) {
        return statusOf([...records.values()].map((r) => rowOf(r, now)), history, records);
      },

      screenOf(id) {
        return records.get(id)?.screen;
      },

      focusMove(to) {
        const s = get();
        if (to === 'next' || to === 'prev') {
          const order = focusOrder(s.layout);
          const at = Math.max(0, order.indexOf(s.focus));
          const step = to === 'next' ? 1 : order.length - 1;
          moveFocus(order[(at + step) % order.length] ?? 'main');
          return;
        }
        const target = neighbour(s.layout, s.focus, to);
        if (target !== null) moveFocus(target);
      },

      focusSet(pane) {
        const s = get();
        if (pane === 'main' || s.layout.panels.some((p) => p.id === pane)) moveFocus(pane);
      },

      zoomToggle() {
        const s = get();
        const zoom = s.zoom === null ? s.focus : null;
        set({ zoom, scrollback: 0 });
        publish();
      },

      helpToggle() {
        set({ help: !get().help });
      },

      scroll(pages) {
        const s = get();
        if (pages === 0) {
          if (s.scrollback !== 0) set({ scrollback: 0 });
          return;
        }
        const rect = s.focus === 'main' ? s.layout.main : s.layout.panels.find((p) => p.id === s.focus)?.rect;
        const page = Math.max(1, (rect?.rows ?? s.rows) - 2);
        set({ scrollback: Math.max(0, s.scrollback - pages * page) });
      },
    };

  });

  return Object.assign(store, { counters });
}
