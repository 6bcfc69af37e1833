/**
 * Drives a board from real time: flush at most every ORCH_FLUSH_INTERVAL, the
 * watchdog every ORCH_MONITOR_INTERVAL. The board itself never reads a clock;
 * this adapter is the one place that does, through an injectable `now`.
 *
 * The clock sleeps when there is nothing to do (issue 3: idle under 1 % of a
 * core; docs/perf-log.md, "idle"): the flush timer is armed only while the
 * board has pending output (the board wakes it, once per flush, not per
 * token), and the watchdog sleeps until the board's next due time
 * (`nextDue`: every tick while an agent is live, else a lingering panel's
 * removal or a feed pane's lease). Ticks stay on the grid of one second from
 * when the board got its first record, as the interval they replace did, so
 * every decision happens at the same tick; any wake-up from the board (a
 * panel opened, output or a feed op arrived) and every flush look at the due
 * time again, so new work is never slept through.
 */
import { ORCH_FLUSH_INTERVAL, ORCH_MONITOR_INTERVAL } from '../../core/policy.js';
import type { Board } from '../../../store/board.js';
import { after, type Cancel } from '../after.js';

/** A running clock; stop() clears its timers. */
export interface BoardClock {
  stop(): void;
}

/** Starts ticking and flushing `board`; `now` defaults to Date.now. */
export function startBoardClock(board: Board, now: () => number = Date.now): BoardClock {
  let flushTimer: Cancel | undefined;
  let lastFlush = -Infinity;
  let stopped = false;
  /** The grid's origin: ticks fall at origin + n seconds, n >= 1; undefined while the board is empty. */
  let origin: number | undefined;
  /** The n of the last tick run on this grid (0: none yet). */
  let ticked = 0;
  let tickTimer: NodeJS.Timeout | undefined;
  /** The n the tick timer is armed for. */
  let armedFor = 0;

  const flush = (): void => {
    flushTimer = undefined;
    const t = now();
    lastFlush = t;
    board.getState().flush(t);
    armFlush();
    armTick(); // a feed op may have brought a removal closer
  };

  /** Arms the flush timer if output waits, at the next slot after the last flush. */
  const armFlush = (): void => {
    if (stopped || flushTimer !== undefined || !board.getState().pending()) return;
    // Due already (the first output after a pause): in this loop turn, after whatever else was read in it.
    flushTimer = after(lastFlush + ORCH_FLUSH_INTERVAL - now(), flush, true);
  };

  const tick = (): void => {
    tickTimer = undefined;
    ticked = armedFor;
    board.getState().tick(now());
    armTick();
    armFlush(); // a finished agent's footer, a feed pane's new state
  };

  const stopTick = (): void => {
    if (tickTimer !== undefined) clearTimeout(tickTimer);
    tickTimer = undefined;
  };

  /** Arms the tick at the first grid point at or after the board's next due time (never one already ticked). */
  const armTick = (): void => {
    if (stopped) return;
    const state = board.getState();
    if (!state.active()) {
      stopTick();
      origin = undefined;
      ticked = 0;
      return;
    }
    const t = now();
    origin ??= t;
    const due = state.nextDue(t);
    if (due === undefined) {
      stopTick();
      return;
    }
    const n = Math.max(ticked + 1, Math.ceil((due - origin) / ORCH_MONITOR_INTERVAL));
    if (tickTimer !== undefined && armedFor === n) return;
    stopTick();
    armedFor = n;
    tickTimer = setTimeout(tick, Math.max(0, origin + n * ORCH_MONITOR_INTERVAL - t));
    tickTimer.unref();
  };

  const unsubscribe = board.getState().onWake(() => {
    armFlush();
    armTick();
  });
  armFlush();
  armTick();

  return {
    stop() {
      stopped = true;
      unsubscribe();
      flushTimer?.();
      flushTimer = undefined;
      stopTick();
    },
  };
}
