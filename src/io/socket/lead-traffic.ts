/**
 * What the control socket saw of a lead (`tai --wake`, docs/lead.md): the agents started over it, when each was
 * last polled, and which ends and questions its replies told, so the wake-up never types what the lead heard.
 * Bounded: a job leaves once its end is told (typed or polled), and polls of agents not held are not recorded.
 */
import type { Command } from '../../core/protocol/commands.js';
import type { Reply } from '../../../store/dispatch.js';

/** A poll answered this recently still counts as a wait pending: a `wait` polls again within about a second. */
export const WAIT_RECENT_MS = 3_000;

/** The record the control server keeps when the cockpit wakes its lead. */
export interface LeadTraffic {
  /** A request arrived (the control server calls it before dispatching). */
  asked(command: Command, at: number): void;
  /** Its reply was made. */
  answered(command: Command, reply: Reply, at: number): void;
  /** True for an agent started over the control socket, or a later attempt of one (a retry). */
  started(id: number): boolean;
  /** The id the lead holds for `id`: a retry's first attempt's. */
  jobOf(id: number): number;
  /** True for an attempt whose job retried: its end is not the job's. */
  superseded(id: number): boolean;
  /** True while a poll of agent `id` is in flight or was answered within WAIT_RECENT_MS. */
  waitingOn(id: number, now: number): boolean;
  /** When `waitingOn(id)` turns false if no poll comes: Infinity while one is in flight (its answer ends it). */
  waitEndsAt(id: number): number;
  /** Calls `listener` after each reply that changed the record (a spawn, a poll, a question list); returns the unsubscribe. */
  onChange(listener: () => void): () => void;
  /** True once a reply reported agent `id` finished, or (state `asking`) listed its open question at or after `since`. */
  heard(id: number, state: string, since: number): boolean;
  /**
   * The wake-up is done with the end of attempt `id` (typed to the lead, or
   * heard by it): a superseded attempt is forgotten, else its whole job.
   */
  settled(id: number): void;
  /** The jobs and attempts held now (a bound for tests; none once every job's end was told). */
  readonly size: number;
}

/** A new, empty record; `currentAttempt` maps a job's id to its attempt now running (the agent service's). */
export function createLeadTraffic(currentAttempt: (id: number) => number | undefined = () => undefined): LeadTraffic {
  const started = new Set<number>();
  /** Each attempt seen of a job the lead started, with its job's id. */
  const attempts = new Map<number, number>();
  const jobOf = (id: number): number | undefined => {
    const known = attempts.get(id);
    if (known !== undefined) return known;
    for (const job of started) {
      if (currentAttempt(job) !== id) continue;
      attempts.set(id, job);
      return job;
    }
    return undefined;
  };
  const inFlight = new Map<number, number>();
  const polledAt = new Map<number, number>();
  const ended = new Set<number>();
  const askSeenAt = new Map<number, number>();
  const listeners = new Set<() => void>();
  const changed = (): void => [...listeners].forEach((l) => l());
  const forget = (id: number): void => {
    for (const held of [attempts, inFlight, polledAt, askSeenAt]) held.delete(id);
    ended.delete(id);
  };
  return {
    asked(command) {
      if (command.cmd === 'poll' && jobOf(command.id) !== undefined) inFlight.set(command.id, (inFlight.get(command.id) ?? 0) + 1);
    },
    answered(command, reply, at) {
      if (command.cmd === 'poll') {
        const left = (inFlight.get(command.id) ?? 0) - 1;
        if (left > 0) inFlight.set(command.id, left);
        else inFlight.delete(command.id);
        // A poll of an agent the record does not hold (settled, or never the lead's) changes nothing it must know.
        if (jobOf(command.id) === undefined) return;
        polledAt.set(command.id, at);
        if (reply.ok && isFinished(reply.data)) ended.add(command.id);
        changed();
      } else if (command.cmd === 'spawn' && reply.ok) {
        const id = (reply.data as { id?: unknown } | null)?.id;
        if (typeof id !== 'number') return;
        started.add(id);
        attempts.set(id, id);
        changed();
      } else if (command.cmd === 'ask_list' && reply.ok && Array.isArray(reply.data)) {
        for (const q of reply.data as { open?: unknown; panel?: unknown }[]) {
          if (q.open === true && typeof q.panel === 'number' && jobOf(q.panel) !== undefined) askSeenAt.set(q.panel, at);
        }
        changed();
      }
    },
    started: (id) => jobOf(id) !== undefined,
    jobOf: (id) => jobOf(id) ?? id,
    superseded: (id) => {
      const job = jobOf(id);
      return job !== undefined && (currentAttempt(job) ?? job) !== id;
    },
    waitingOn: (id, now) => (inFlight.get(id) ?? 0) > 0 || now - (polledAt.get(id) ?? -Infinity) < WAIT_RECENT_MS,
    waitEndsAt: (id) => ((inFlight.get(id) ?? 0) > 0 ? Infinity : (polledAt.get(id) ?? -Infinity) + WAIT_RECENT_MS),
    onChange: (listener) => (listeners.add(listener), () => void listeners.delete(listener)),
    heard: (id, state, since) => (state === 'asking' ? (askSeenAt.get(id) ?? -Infinity) >= since : ended.has(id)),
    settled(id) {
      const job = jobOf(id);
      if (job === undefined) return;
      if ((currentAttempt(job) ?? job) !== id) {
        // A retried attempt: its job goes on (and answers to its first id, which stays).
        if (id !== job) forget(id);
        return;
      }
      started.delete(job);
      for (const [attempt, of] of attempts) if (of === job) forget(attempt);
      forget(job);
    },
    get size() {
      return started.size + attempts.size + inFlight.size + polledAt.size + ended.size + askSeenAt.size;
    },
  };
}

function isFinished(data: unknown): boolean {
  return typeof data === 'object' && data !== null && (data as { finished?: unknown }).finished === true;
}
