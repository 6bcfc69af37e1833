/**
 * Waiting on a condition with a deadline, never a sleep.
 * Two doors onto `vi.waitFor`, one per style of condition in the tests:
 * - `until(holds)`: a boolean predicate over real processes, sockets or
 *   files ("the group is gone"); at the deadline it fails naming what it
 *   waited for (its `what`, else the predicate's source);
 * - `untilPasses(check)`: an assertion callback (`expect(...)`), retried until
 *   it passes; at the deadline it fails with the assertion's own message.
 * `vi.waitFor` keeps to the real timers (and moves fake ones forward by
 * `interval` at each look), so a wait works beside `vi.useFakeTimers`.
 */
import { vi } from 'vitest';

/** How long to wait and how often to look. */
export interface Pace {
  /** Milliseconds before the wait fails (default 10 s, under the suite's 30 s test timeout). */
  readonly timeout?: number;
  /** Milliseconds between looks (default 10). */
  readonly interval?: number;
}

/** A wait on a boolean predicate: its pace, its name and what runs between looks. */
export interface Wait extends Pace {
  /** What is awaited, for the failure message (default: the predicate's source). */
  readonly what?: string;
  /** Runs after each look that found the condition false (a fake clock's `wake`, say). */
  readonly between?: () => void;
  /** More to say when the wait fails (the processes' output, say); read once, at the deadline. */
  readonly explain?: () => string;
}

/** The deadline of a wait that names none. */
export const WAIT_TIMEOUT_MS = 10_000;

/** The pause between two looks of a wait that names none. */
export const WAIT_INTERVAL_MS = 10;

/** Resolves once `holds()` is true; rejects at the deadline, naming what it waited for. */
export async function until(holds: () => boolean, wait: Wait = {}): Promise<void> {
  const timeout = wait.timeout ?? WAIT_TIMEOUT_MS;
  const notYet = new Error('not yet');
  try {
    await vi.waitFor(
      () => {
        if (holds()) return;
        wait.between?.();
        throw notYet;
      },
      { timeout, interval: wait.interval ?? WAIT_INTERVAL_MS },
    );
  } catch (err) {
    if (err !== notYet) throw err;
    const more = wait.explain ? `\n${wait.explain()}` : '';
    throw new Error(`timed out after ${timeout} ms waiting for ${wait.what ?? String(holds)}${more}`);
  }
}

/** Resolves once `check()` returns without throwing; rejects at the deadline with its last error. */
export async function untilPasses(check: () => void, pace: Pace = {}): Promise<void> {
  await vi.waitFor(check, { timeout: pace.timeout ?? WAIT_TIMEOUT_MS, interval: pace.interval ?? WAIT_INTERVAL_MS });
}
