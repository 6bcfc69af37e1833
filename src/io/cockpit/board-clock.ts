/**
 * Drives a board from real time: flush at most every ORCH_FLUSH_INTERVAL, the
 * watchdog every ORCH_MONITOR_INTERVAL. The board itself never reads a clock;
 * this adapter is the one place that does, through an injectable `now`.
 *
 * The clock sleeps when there is nothing to do (issue 3: idle under 1 % of a
 * core): the flush timer is armed only while the board has pending output
 * (the board wakes it, once per flush, not per token), and the watchdog runs
 * only while some record needs it (live, lingering, or a feed pane's lease).
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
  let tickTimer: NodeJS.Timeout | undefined;
  let lastFlush = -Infinity;
  let stopped = false;

  const flush = (): void => {
    flushTimer = undefined;
    const t = now();
    lastFlush = t;
    board.getState().flush(t);
    armFlush();
  };

  /** Arms the flush timer if output waits, at the next slot after the last flush. */
  const armFlush = (): void => {
    if (stopped || flushTimer !== undefined || !board.getState().pending()) return;
    // Due already (the first output after a pause): in this loop turn, after whatever else was read in it.
    flushTimer = after(lastFlush + ORCH_FLUSH_INTERVAL - now(), flush, true);
  };

  const tick = (): void => {
    board.getState().tick(now());
    if (!board.getState().active()) stopTick();
    armFlush(); // a finished agent's footer, a feed pane's new state
  };

  const startTick = (): void => {
    if (stopped || tickTimer !== undefined || !board.getState().active()) return;
    tickTimer = setInterval(tick, ORCH_MONITOR_INTERVAL);
    tickTimer.unref();
  };

  const stopTick = (): void => {
    if (tickTimer !== undefined) clearInterval(tickTimer);
    tickTimer = undefined;
  };

  const unsubscribe = board.getState().onWake(() => {
    armFlush();
    startTick();
  });
  armFlush();
  startTick();

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
