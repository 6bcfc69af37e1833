/**
 * One timer that costs no extra wake-up when already due: a delay of zero or less runs `fn` in this turn
 * (setImmediate), a positive one on a timer, so output read at a pacer tick is flushed and drawn in the same wake-up
 * (docs/performance.md).
 */

/** Cancels a pending `after`. */
export type Cancel = () => void;

/** Runs `fn` after `ms` (at once, in this loop turn, when `ms <= 0`); an unref'd one never keeps the process alive. */
export function after(ms: number, fn: () => void, unref = false): Cancel {
  if (ms <= 0) {
    const immediate = setImmediate(fn);
    if (unref) immediate.unref();
    return () => clearImmediate(immediate);
  }
  const timer = setTimeout(fn, ms);
  if (unref) timer.unref();
  return () => clearTimeout(timer);
}

/** Resolves after `ms`, or at once when `signal` aborts: the one sleep of the waits (the outage's, the lead's). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, ms));
    signal?.addEventListener('abort', done, { once: true });
  });
}
