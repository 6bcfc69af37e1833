/**
 * When a watched lane's diff stat is taken (docs/lanes.md, "The panel"; docs/perf-log.md, "Lanes at rest"): only
 * after a change, so a lane at rest runs no git. A burst is one stat once the lane is quiet (LANE_STAT_SETTLE_MS,
 * at most LANE_STAT_SETTLE_MAX_MS), stats at least LANE_STAT_GAP_MS apart, one at a time; changes during one
 * bring one more.
 */

/** A burst of changes is over once the lane is quiet this long. */
export const LANE_STAT_SETTLE_MS = 200;

/** A lane that keeps changing still gets its stat this long after the first change (then every LANE_STAT_GAP_MS). */
export const LANE_STAT_SETTLE_MAX_MS = 1_000;

/** Two stats of one lane start at least this far apart ("every few seconds while it runs, cheaply"). */
export const LANE_STAT_GAP_MS = 5_000;

/** The three waits of a trigger: the quiet that ends a burst, the most a burst may hold it, the least between two starts. */
export interface TriggerTiming {
  readonly settle: number;
  readonly settleMax: number;
  readonly gap: number;
}

/** The diff stat's timing. */
export const STAT_TIMING: TriggerTiming = { settle: LANE_STAT_SETTLE_MS, settleMax: LANE_STAT_SETTLE_MAX_MS, gap: LANE_STAT_GAP_MS };

/**
 * The collision look's timing (docs/lanes.md, "Collisions"): a changed lane is looked at within about a third
 * of a second, at most three looks a second a lane, none at rest.
 */
export const COLLIDE_TIMING: TriggerTiming = { settle: 50, settleMax: 300, gap: 300 };

/** What the stat trigger of one lane knows. */
export interface StatTrigger {
  /** The first change no stat has seen yet, if any. */
  readonly pendingSince: number | undefined;
  /** The latest change. */
  readonly lastChangeAt: number;
  /** When the latest stat started, if one did. */
  readonly lastStartAt: number | undefined;
  /** A stat's git runs now. */
  readonly running: boolean;
}

/** A lane nothing has been told about yet. */
export const QUIET_TRIGGER: StatTrigger = { pendingSince: undefined, lastChangeAt: 0, lastStartAt: undefined, running: false };

/** Something in the lane changed at `now`. */
export function changed(t: StatTrigger, now: number): StatTrigger {
  return { ...t, pendingSince: t.pendingSince ?? now, lastChangeAt: now };
}

/** A stat's git started at `now`: it sees every change so far. */
export function statStarted(t: StatTrigger, now: number): StatTrigger {
  return { ...t, pendingSince: undefined, lastStartAt: now, running: true };
}

/** The running stat answered (or failed). */
export function statEnded(t: StatTrigger): StatTrigger {
  return { ...t, running: false };
}

/** When the next stat is due, or undefined when none is (nothing pending, or one runs: its end asks again). */
export function statDueAt(t: StatTrigger, timing: TriggerTiming = STAT_TIMING): number | undefined {
  if (t.pendingSince === undefined || t.running) return undefined;
  const settled = Math.min(t.lastChangeAt + timing.settle, t.pendingSince + timing.settleMax);
  return t.lastStartAt === undefined ? settled : Math.max(settled, t.lastStartAt + timing.gap);
}
