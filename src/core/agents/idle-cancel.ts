/**
 * A spawn's own silence limit (`tai spawn --idle-cancel S`, a
 * registry entry's `idle_cancel`, the socket's `idle_cancel`), checked the
 * same way at every door. The range and the default are in policy.ts.
 */
import { ORCH_IDLE_KILL, ORCH_IDLE_KILL_MAX, ORCH_IDLE_KILL_MIN } from '../policy.js';

/** The smallest and largest silence limit a spawn may ask for, in seconds. */
export const IDLE_CANCEL_MIN_S = ORCH_IDLE_KILL_MIN / 1000;
export const IDLE_CANCEL_MAX_S = ORCH_IDLE_KILL_MAX / 1000;

/** Why a silence limit of `seconds` is refused, or undefined when it is a whole number of seconds in range. */
export function idleCancelProblem(seconds: unknown): string | undefined {
  if (typeof seconds === 'number' && Number.isInteger(seconds) && seconds >= IDLE_CANCEL_MIN_S && seconds <= IDLE_CANCEL_MAX_S) return undefined;
  return `must be a whole number of seconds from ${IDLE_CANCEL_MIN_S} to ${IDLE_CANCEL_MAX_S} (default ${ORCH_IDLE_KILL / 1000})`;
}
