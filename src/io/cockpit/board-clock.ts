/**
 * Drives a board from real time (flush every ORCH_FLUSH_INTERVAL, watchdog every ORCH_MONITOR_INTERVAL) through an
 * injectable `now`: the board never reads a clock. It sleeps with nothing to do, so a cockpit at rest costs no CPU
 * (docs/perf-log.md, "Idle"): the flush armed only while output waits, the watchdog until the board's `nextDue` on
 * its one-second grid, every wake-up looking at the due time again, so no work is slept through.
 */
import { ORCH_FLUSH_INTERVAL, ORCH_MONITOR_INTERVAL } from '../../core/policy.js';
import type { Board } from '../../../store/board.js';
import { after, type Cancel } from '../after.js';

/** Ticks, at most, between two while nobody sees the board: the restore record's sign of life wants one every 5 s. */
export const UNSEEN_TICK_EVERY = 5;

/** A running clock; stop() clears its timers. */
export interface BoardClock {
  stop(): void;
}

/** Starts ticking and flushing `board`; `now` defaults to Date.now. */
export function startBoardClock(board: Board, now: () => number = Date.now): BoardClock {
  const clock = new Clock(board, now);
  const unsubscribe = board.getState().onWake(() => {
    clock.armFlush();
    clock.armTick();
  });
  clock.armFlush();
  clock.armTick();
  return {
    stop() {
      unsubscribe();
      clock.stop();
    },
  };
}

/** The flush timer and the tick on its grid. */
class Clock {
  private flushTimer: Cancel | undefined;
  private lastFlush = -Infinity;
  private stopped = false;
  /** The grid's origin: ticks fall at origin + n seconds, n >= 1; undefined while the board is empty. */
  private origin: number | undefined;
  /** The n of the last tick run on this grid (0: none yet). */
  private ticked = 0;
  private tickTimer: NodeJS.Timeout | undefined;
  /** The n the tick timer is armed for. */
  private armedFor = 0;

  constructor(
    private readonly board: Board,
    private readonly now: () => number,
  ) {}

  /** Arms the flush timer if output waits, at the next slot after the last flush. */
  armFlush(): void {
    if (this.stopped || this.flushTimer !== undefined || !this.board.getState().pending()) return;
    // Due already (the first output after a pause): in this loop turn, after whatever else was read in it.
    this.flushTimer = after(this.lastFlush + ORCH_FLUSH_INTERVAL - this.now(), this.flush, true);
  }

  /** Arms the tick at the first grid point at or after the board's next due time (never one already ticked). */
  armTick(): void {
    if (this.stopped) return;
    const state = this.board.getState();
    if (!state.active()) {
      this.stopTick();
      this.origin = undefined;
      this.ticked = 0;
      return;
    }
    const t = this.now();
    this.origin ??= t;
    const due = state.nextDue(t);
    if (due === undefined) {
      this.stopTick();
      return;
    }
    const atDue = Math.max(this.ticked + 1, Math.ceil((due - this.origin) / ORCH_MONITOR_INTERVAL));
    // Unseen: at most UNSEEN_TICK_EVERY after the last tick (output that keeps coming does not push it away),
    // but never before the next grid point (a clock that slept long does not tick to catch up).
    const n = state.seen() ? atDue : Math.max(Math.min(atDue, this.ticked + UNSEEN_TICK_EVERY), Math.floor((t - this.origin) / ORCH_MONITOR_INTERVAL) + 1);
    if (this.tickTimer !== undefined && this.armedFor === n) return;
    this.stopTick();
    this.armedFor = n;
    this.tickTimer = setTimeout(this.tick, Math.max(0, this.origin + n * ORCH_MONITOR_INTERVAL - t));
    this.tickTimer.unref();
  }

  stop(): void {
    this.stopped = true;
    this.flushTimer?.();
    this.flushTimer = undefined;
    this.stopTick();
  }

  private readonly flush = (): void => {
    this.flushTimer = undefined;
    const t = this.now();
    this.lastFlush = t;
    this.board.getState().flush(t);
    this.armFlush();
    this.armTick(); // a feed op may have brought a removal closer
  };

  private readonly tick = (): void => {
    this.tickTimer = undefined;
    this.ticked = this.armedFor;
    this.board.getState().tick(this.now());
    this.armTick();
    this.armFlush(); // a finished agent's footer, a feed pane's new state
  };

  private stopTick(): void {
    if (this.tickTimer !== undefined) clearTimeout(this.tickTimer);
    this.tickTimer = undefined;
  }
}
