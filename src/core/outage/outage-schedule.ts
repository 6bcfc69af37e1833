/**
 * The widening schedule on which an outage is probed, its stages and give-up (docs/spec.md, "Outage schedule";
 * docs/outages.md, "The schedule"). Every wait counts from when the previous probe's failure was recorded, so a
 * slow probe never makes the next one early. Times are epoch ms; `scale` multiplies every duration, for labs only
 * (TAI_OUTAGE_TIME_SCALE).
 */

/** One minute, in milliseconds. */
const MINUTE = 60_000;
/** One hour, in milliseconds. */
const HOUR = 60 * MINUTE;

/** The first probe comes this long after the outage began. */
export const OUTAGE_PROBE_AFTER_ONE_MINUTE = MINUTE;
/** After the first failed probe, the next comes this long later. */
export const OUTAGE_PROBE_AFTER_FIVE_MINUTES = 5 * MINUTE;
/** After the second failed probe, the next comes this long later. */
export const OUTAGE_PROBE_AFTER_TEN_MINUTES = 10 * MINUTE;
/** After the third failed probe, the next comes this long later. */
export const OUTAGE_PROBE_AFTER_ONE_HOUR = HOUR;
/** In the hourly stage, probes come this far apart. */
export const OUTAGE_HOURLY_INTERVAL = HOUR;
/** The hourly stage lasts this long after it began; its last failed probe gives up. */
export const OUTAGE_HOURLY_STAGE_LIMIT = 8 * HOUR;

/** The wait before a probe, named by its length. */
export type OutageStage = 'one-minute' | 'five-minutes' | 'ten-minutes' | 'one-hour' | 'hourly';

/** The widening stages before the hourly one, in order: entry `i` is the wait after `i` failed probes. */
export const OUTAGE_WIDENING_STEPS: readonly { readonly stage: OutageStage; readonly delay: number }[] = [
  { stage: 'one-minute', delay: OUTAGE_PROBE_AFTER_ONE_MINUTE },
  { stage: 'five-minutes', delay: OUTAGE_PROBE_AFTER_FIVE_MINUTES },
  { stage: 'ten-minutes', delay: OUTAGE_PROBE_AFTER_TEN_MINUTES },
  { stage: 'one-hour', delay: OUTAGE_PROBE_AFTER_ONE_HOUR },
];

/** Where an outage stands on the schedule. */
export interface OutageProgress {
  /** When the outage began (epoch ms). */
  readonly startedAt: number;
  /** How many probes have failed so far. */
  readonly attempts: number;
  /** When the hourly stage began, once it has (epoch ms). */
  readonly hourlyStartedAt?: number | null;
}

/** What the schedule says to do next: probe at a time, or give up. */
export type ProbePlan =
  | {
      readonly kind: 'probe';
      /** When the next probe is due (epoch ms). */
      readonly at: number;
      /** The wait this probe ends. */
      readonly stage: OutageStage;
      /** When the hourly stage began, set from the moment it begins. */
      readonly hourlyStartedAt?: number;
    }
  | { readonly kind: 'give-up' };

/**
 * The next step for an outage whose latest failed probe (or start) was at `now`: the next probe's time and
 * stage, or give-up once a probe at or past the hourly stage's 8-hour mark has failed.
 */
export function nextProbe(outage: OutageProgress, now: number, scale = 1): ProbePlan {
  checkTimeScale(scale);
  const { attempts } = outage;
  if (!Number.isInteger(attempts) || attempts < 0) {
    throw new RangeError(`an outage's attempts must be a whole number from 0, got ${attempts}`);
  }
  // Whole milliseconds, so a scaled time stays an integer in storage.
  const scaled = (duration: number): number => Math.round(duration * scale);
  if (attempts === 0) {
    return { kind: 'probe', at: outage.startedAt + scaled(OUTAGE_PROBE_AFTER_ONE_MINUTE), stage: 'one-minute' };
  }
  const widening = OUTAGE_WIDENING_STEPS[attempts];
  if (widening !== undefined) {
    return { kind: 'probe', at: now + scaled(widening.delay), stage: widening.stage };
  }
  // The one-hour probe has failed: the hourly stage begins now, unless it already has.
  const hourlyStartedAt = outage.hourlyStartedAt ?? now;
  const limit = hourlyStartedAt + scaled(OUTAGE_HOURLY_STAGE_LIMIT);
  if (now >= limit) return { kind: 'give-up' };
  // The last probe lands on the 8-hour mark even when earlier probes ran late.
  const at = Math.min(now + scaled(OUTAGE_HOURLY_INTERVAL), limit);
  return { kind: 'probe', at, stage: 'hourly', hourlyStartedAt };
}

/**
 * When a panel held since `heldAt`, already restarted `restarts` times after outages, may restart: the first at
 * once, each repeat as late as that many failed probes, so an agent failing at once is not restarted every
 * few seconds (docs/outages.md, "The model").
 */
export function restartNotBefore(heldAt: number, restarts: number, scale = 1): number {
  checkTimeScale(scale);
  if (restarts <= 0) return heldAt;
  const step = OUTAGE_WIDENING_STEPS[Math.min(restarts, OUTAGE_WIDENING_STEPS.length - 1)];
  return heldAt + Math.round((step?.delay ?? OUTAGE_PROBE_AFTER_ONE_HOUR) * scale);
}

/** The stage of the probe pending after `attempts` failed probes. */
export function stageAfter(attempts: number): OutageStage {
  return OUTAGE_WIDENING_STEPS[attempts]?.stage ?? 'hourly';
}

/** True when `value` names a stage of the schedule, for reading stored rows. */
export function isOutageStage(value: unknown): value is OutageStage {
  return value === 'hourly' || OUTAGE_WIDENING_STEPS.some((step) => step.stage === value);
}

/**
 * The time scale written in `TAI_OUTAGE_TIME_SCALE`: 1 when unset or empty,
 * else a positive number, with an exact message for anything else.
 */
export function parseTimeScale(text: string | undefined): number {
  if (text === undefined || text.trim() === '') return 1;
  const scale = Number(text);
  if (!Number.isFinite(scale) || scale <= 0) {
    throw new RangeError(`TAI_OUTAGE_TIME_SCALE must be a positive number (0.001 makes a minute 60 ms), got "${text}"`);
  }
  return scale;
}

/** Refuses a scale that would make the schedule meaningless. */
function checkTimeScale(scale: number): void {
  if (!Number.isFinite(scale) || scale <= 0) {
    throw new RangeError(`the outage time scale must be a positive number, got ${scale}`);
  }
}
