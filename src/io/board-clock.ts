/**
 * Drives a board from real time: flush every ORCH_FLUSH_INTERVAL, the
 * watchdog every ORCH_MONITOR_INTERVAL. The board itself never reads a clock;
 * this adapter is the one place that does, through an injectable `now`.
 */
import { ORCH_FLUSH_INTERVAL, ORCH_MONITOR_INTERVAL } from '../core/policy.js';
import type { Board } from '../../store/board.js';

/** A running clock; stop() clears its timers. */
export interface BoardClock {
  stop(): void;
}

/** Starts ticking and flushing `board`; `now` defaults to Date.now. */
export function startBoardClock(board: Board, now: () => number = Date.now): BoardClock {
  const flush = setInterval(() => board.getState().flush(now()), ORCH_FLUSH_INTERVAL);
  const tick = setInterval(() => board.getState().tick(now()), ORCH_MONITOR_INTERVAL);
  flush.unref();
  tick.unref();
  return {
    stop() {
      clearInterval(flush);
      clearInterval(tick);
    },
  };
}
