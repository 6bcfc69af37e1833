/**
 * Waiting an outage out on the one shared probe (docs/outages.md, "The model"): every waiter reads the outage,
 * claims and runs a due probe (one wins machine-wide), else sleeps until the next, never past the poll bound, so
 * another process's outcome is seen soon. The standing wake-up follows the schedule with no waiter left
 * (docs/spec.md, "The standing wake-up"). Clock and sleep are injected.
 */
import type { OutageService } from '../../core/outage/classify.js';
import {
  claimProbe,
  getOutage,
  listOutages,
  log,
  openOutage,
  recordProbe,
  type Outage,
} from './outage-store.js';
import { PROBE_TIMEOUT_MS, type ProbeSource } from './probes.js';
import { StateDbLockedError, type StateDb } from '../storage/state-db.js';
import { sleep } from '../after.js';

/** A waiter polls the shared state at least this often (on the outage's time scale). */
export const OUTAGE_POLL_MS = 1_000;
/** However small the time scale, a waiter never polls more often than this. */
export const OUTAGE_POLL_FLOOR_MS = 10;
/** A claimed probe's lease: the probe's timeout and a margin to record its outcome. */
export const OUTAGE_PROBE_LEASE_MS = PROBE_TIMEOUT_MS + 15_000;
/** The standing wake-up re-evaluates the outages this often (docs/spec.md, "The standing wake-up": every 20 minutes). */
export const OUTAGE_WAKE_UP_MS = 20 * 60_000;

/** The services an outage can belong to, in the order they are evaluated. */
const SERVICES: readonly OutageService[] = ['network', 'model'];

/** Sleeps `ms` milliseconds; resolves early (never rejects) when `signal` aborts. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** What every waiter needs: the shared state, the clock, the probes. */
export interface OutageWaitOptions {
  readonly db: StateDb;
  readonly probes: ProbeSource;
  /** The clock (epoch ms); defaults to Date.now. */
  readonly now?: () => number;
  /** The sleep; defaults to a real timer. */
  readonly sleep?: Sleep;
  /** Who claims probes (tests give each simulated process its own); defaults to this process. */
  readonly pid?: number;
  /** The poll bound at time scale 1; defaults to OUTAGE_POLL_MS. */
  readonly pollMs?: number;
  readonly leaseMs?: number;
  /** Called with the outage whenever its place on the schedule changes, first on entry. */
  readonly onProgress?: (outage: Outage) => void;
  /** Ends the wait early: the result is `aborted`. */
  readonly signal?: AbortSignal;
}

/** How a wait ended. */
export type WaitEnd =
  | { readonly kind: 'back'; readonly outage: Outage }
  | { readonly kind: 'gave-up'; readonly outage: Outage }
  | { readonly kind: 'aborted'; readonly outage: Outage };

/** The real sleep: a timer, cut short by an abort. */
export const realSleep: Sleep = sleep;

/** Waits on outage `outageId` until its service is back or the schedule gives up, probing whenever this waiter wins the claim. */
export async function waitOutOutage(options: OutageWaitOptions, outageId: number): Promise<WaitEnd> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? realSleep;
  const pollMs = options.pollMs ?? OUTAGE_POLL_MS;
  let seen = '';
  let outage = getOutage(options.db, outageId);
  for (;;) {
    if (outage === undefined) throw new Error(`outage ${outageId} is not in the state database`);
    if (outage.endedAt !== null) return { kind: 'back', outage };
    if (outage.gaveUpAt !== null) return { kind: 'gave-up', outage };
    if (options.signal?.aborted) return { kind: 'aborted', outage };
    const place = `${outage.attempts}/${outage.stage}/${outage.nextProbeAt ?? ''}`;
    if (place !== seen) {
      seen = place;
      options.onProgress?.(outage);
    }
    try {
      if (!(await probeIfDue(options, outage, now()))) await sleep(pollDelay(outage, now(), pollMs), options.signal);
      outage = getOutage(options.db, outageId);
    } catch (error) {
      // A wait lasts hours: another process holding the database past the busy timeout is waited out too.
      if (!(error instanceof StateDbLockedError)) throw error;
      await sleep(pollMs, options.signal);
    }
  }
}

/** What one evaluation of the outages found. */
export interface OutageEvaluation {
  /** The outages still open afterwards. */
  readonly open: readonly Outage[];
  /** Outages that gave up and whose one notification has not been claimed yet. */
  readonly gaveUp: readonly Outage[];
  /** How many probes this evaluation ran. */
  readonly probed: number;
}

/** Evaluates every open outage once: runs each probe that is due (if this process wins its claim), then reports what stands. */
export async function evaluateOutages(options: OutageWaitOptions): Promise<OutageEvaluation> {
  const now = options.now ?? Date.now;
  let probed = 0;
  for (const service of SERVICES) {
    const outage = openOutage(options.db, service);
    if (outage !== undefined && (await probeIfDue(options, outage, now()))) probed += 1;
  }
  const all = listOutages(options.db);
  return {
    open: all.filter((outage) => outage.endedAt === null && outage.gaveUpAt === null),
    gaveUp: all.filter((outage) => outage.gaveUpAt !== null && outage.notifiedAt === null),
    probed,
  };
}

/** A running standing wake-up. */
export interface StandingWakeUp {
  /** Stops it; `done` resolves once the current evaluation (if any) has finished. */
  stop(): void;
  readonly done: Promise<void>;
}

/**
 * Arms the standing wake-up: evaluates the outages now and every `everyMs` until stopped, handing each to
 * `onEvaluated` (where the cockpit stops held agents and notifies at give-up).
 */
export function startStandingWakeUp(
  options: OutageWaitOptions & {
    readonly everyMs?: number;
    readonly onEvaluated?: (evaluation: OutageEvaluation) => void | Promise<void>;
    /** Called when an evaluation throws (a locked database); the wake-up goes on. */
    readonly onError?: (error: unknown) => void;
  },
): StandingWakeUp {
  const stopper = new AbortController();
  const sleep = options.sleep ?? realSleep;
  const every = options.everyMs ?? OUTAGE_WAKE_UP_MS;
  const loop = async (): Promise<void> => {
    while (!stopper.signal.aborted) {
      try {
        const evaluation = await evaluateOutages(options);
        await options.onEvaluated?.(evaluation);
      } catch (error) {
        options.onError?.(error);
      }
      await sleep(every, stopper.signal);
    }
  };
  return { stop: () => stopper.abort(), done: loop() };
}

/** Runs `outage`'s probe when it is due and this waiter wins the claim; true if it probed. */
async function probeIfDue(options: OutageWaitOptions, outage: Outage, at: number): Promise<boolean> {
  if (outage.nextProbeAt === null || at < outage.nextProbeAt) return false;
  const probe = options.probes(outage.service);
  // No probe configured (a model service without a canary): the outcome comes by hand.
  if (probe === undefined) return false;
  const pid = options.pid ?? process.pid;
  if (!claimProbe(options.db, outage.service, pid, at, options.leaseMs ?? OUTAGE_PROBE_LEASE_MS)) return false;
  const outcome = await probe();
  const now = (options.now ?? Date.now)();
  const entry = { at: now, pid, service: outage.service, outageId: outage.id };
  // A probe that outlived its lease (another process took over) or was overtaken by an
  // outcome recorded by hand must not move the schedule a second step.
  const current = getOutage(options.db, outage.id);
  if (current === undefined || current.proberPid !== pid || current.attempts !== outage.attempts || current.endedAt !== null || current.gaveUpAt !== null) {
    log(options.db, { ...entry, kind: 'probe-late', detail: `discarded, the step was already decided: ${outcome.detail}` });
    return true;
  }
  log(options.db, { ...entry, kind: 'probe-output', detail: outcome.detail });
  recordProbe(options.db, outage.service, outcome.ok, now, pid);
  return true;
}

/** How long to sleep before looking again: until the probe is due, within the poll bound. */
function pollDelay(outage: Outage, now: number, pollMs: number): number {
  const bound = Math.min(pollMs, Math.max(OUTAGE_POLL_FLOOR_MS, Math.round(pollMs * outage.timeScale)));
  if (outage.nextProbeAt === null || outage.nextProbeAt <= now) return bound;
  return Math.max(1, Math.min(bound, outage.nextProbeAt - now));
}
