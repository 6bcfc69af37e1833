/**
 * What the control socket saw of a lead (`tai --wake`, docs/lead.md): the
 * agents started over it (by `tai mcp`, `tai spawn` in the main pane: not
 * the keyboard's @mentions), when each was last polled (a `wait` looks about
 * once a second; a blocking `tai spawn` polls with a wait of its own), and
 * which ends and questions its replies reported, so that the wake-up never
 * types what the lead already heard.
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
  /** True once a reply reported agent `id` finished, or (state `asking`) listed its open question at or after `since`. */
  heard(id: number, state: string, since: number): boolean;
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
  return {
    asked(command) {
      if (command.cmd === 'poll') inFlight.set(command.id, (inFlight.get(command.id) ?? 0) + 1);
    },
    answered(command, reply, at) {
      if (command.cmd === 'poll') {
        inFlight.set(command.id, (inFlight.get(command.id) ?? 1) - 1);
        polledAt.set(command.id, at);
        if (reply.ok && isFinished(reply.data)) ended.add(command.id);
      } else if (command.cmd === 'spawn' && reply.ok) {
        const id = (reply.data as { id?: unknown } | null)?.id;
        if (typeof id === 'number') {
          started.add(id);
          attempts.set(id, id);
        }
      } else if (command.cmd === 'ask_list' && reply.ok && Array.isArray(reply.data)) {
        for (const q of reply.data as { open?: unknown; panel?: unknown }[]) if (q.open === true && typeof q.panel === 'number') askSeenAt.set(q.panel, at);
      }
    },
    started: (id) => jobOf(id) !== undefined,
    jobOf: (id) => jobOf(id) ?? id,
    superseded: (id) => {
      const job = jobOf(id);
      return job !== undefined && (currentAttempt(job) ?? job) !== id;
    },
    waitingOn: (id, now) => (inFlight.get(id) ?? 0) > 0 || now - (polledAt.get(id) ?? -Infinity) < WAIT_RECENT_MS,
    heard: (id, state, since) => (state === 'asking' ? (askSeenAt.get(id) ?? -Infinity) >= since : ended.has(id)),
  };
}

function isFinished(data: unknown): boolean {
  return typeof data === 'object' && data !== null && (data as { finished?: unknown }).finished === true;
}
