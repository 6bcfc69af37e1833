/**
 * The board's wake-ups for its clock (src/io/cockpit/board-clock.ts): the clock
 * sleeps while the board has nothing to flush or supervise, and the board
 * tells it when work appears.
 *
 * Vocabulary:
 * - armed: a wake-up for pending output was sent since the last flush; the
 *   clock has a flush coming, so more output does not call it again (a
 *   streaming agent wakes the clock once per flush, not once per token).
 */

/** The listeners of one board and whether they are armed. */
export interface Wakes {
  /** Work appeared (a panel opened): tells every listener. */
  notify(): void;
  /** Output became pending: tells every listener, once until the next flush. */
  wake(): void;
  /** A flush ran: the next pending output wakes the clock again. */
  flushed(): void;
  /** Calls `listener` on every wake-up; returns the unsubscribe. */
  onWake(listener: () => void): () => void;
}

/** Creates the wake-ups of a new board: no listener, not armed. */
export function createWakes(): Wakes {
  const listeners = new Set<() => void>();
  let armed = false;
  const notify = (): void => {
    for (const l of [...listeners]) l();
  };
  return {
    notify,
    wake() {
      if (armed) return;
      armed = true;
      notify();
    },
    flushed() {
      armed = false;
    },
    onWake(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
}
