/**
 * A fake clock for code that takes its time as parameters:
 * `now` reads it, and `sleep` parks the caller until the clock reaches its
 * wake-up time. The clock moves only when a test says so: by setting `t`,
 * by `wake` (the earliest sleeper wakes and the clock jumps to its time) or by
 * `runUntil` (sleeper after sleeper until a promise settles).
 */
import type { Sleep } from '../../src/io/outage/outage-wait.js';

/** One parked `sleep`: when it is due and how to wake it. */
interface Sleeper {
  readonly at: number;
  readonly wake: () => void;
}

/** A virtual clock shared by every simulated process of a test. */
export class FakeClock {
  /** The time in ms since the epoch; a test may set it. */
  t: number;
  readonly #sleepers: Sleeper[] = [];

  constructor(start: number) {
    this.t = start;
  }

  /** The clock's time, as the code under test asks for it. */
  readonly now = (): number => this.t;

  /** Resolves when the clock reaches `ms` from now, or at once when `signal` aborts. */
  readonly sleep: Sleep = (ms, signal) =>
    new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const abort = (): void => {
        const at = this.#sleepers.indexOf(sleeper);
        if (at >= 0) this.#sleepers.splice(at, 1);
        resolve();
      };
      const sleeper: Sleeper = {
        at: this.t + Math.max(0, ms),
        wake: () => {
          signal?.removeEventListener('abort', abort);
          resolve();
        },
      };
      this.#sleepers.push(sleeper);
      signal?.addEventListener('abort', abort, { once: true });
    });

  /** Wakes the earliest sleeper and moves the clock to its time (never back); false when nobody sleeps. */
  readonly wake = (): boolean => {
    this.#sleepers.sort((a, b) => a.at - b.at);
    const next = this.#sleepers.shift();
    if (next === undefined) return false;
    this.t = Math.max(this.t, next.at);
    next.wake();
    return true;
  };

  /**
   * Wakes sleeper after sleeper, letting the woken run to their next sleep
   * (one turn of the event loop each), until `done` settles or `limit` turns
   * have passed; returns what `done` settled with.
   */
  async runUntil<T>(done: Promise<T>, limit = 100_000): Promise<T> {
    let settled = false;
    const result = done.finally(() => {
      settled = true;
    });
    for (let turn = 0; turn < limit && !settled; turn += 1) {
      await new Promise((resolve) => setImmediate(resolve));
      if (!settled) this.wake();
    }
    return result;
  }
}
