/**
 * The board's wake-ups for its clock (src/io/cockpit/board-clock.ts), which sleeps while there is nothing to flush
 * or supervise. Once armed for pending output, more output does not wake it again before the flush, so a streaming
 * agent wakes the clock once a flush, not once a token.
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
