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
  /** True for an agent started over the control socket. */
  started(id: number): boolean;
  /** True while a poll of agent `id` is in flight or was answered within WAIT_RECENT_MS. */
  waitingOn(id: number, now: number): boolean;
  /** True once a reply reported agent `id` finished, or (state `asking`) listed its open question at or after `since`. */
  heard(id: number, state: string, since: number): boolean;
}

/** A new, empty record. */
export function createLeadTraffic(): LeadTraffic {
  const started = new Set<number>();
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
        if (typeof id === 'number') started.add(id);
      } else if (command.cmd === 'ask_list' && reply.ok && Array.isArray(reply.data)) {
        for (const q of reply.data as { open?: unknown; panel?: unknown }[]) if (q.open === true && typeof q.panel === 'number') askSeenAt.set(q.panel, at);
      }
    },
    started: (id) => started.has(id),
    waitingOn: (id, now) => (inFlight.get(id) ?? 0) > 0 || now - (polledAt.get(id) ?? -Infinity) < WAIT_RECENT_MS,
    heard: (id, state, since) => (state === 'asking' ? (askSeenAt.get(id) ?? -Infinity) >= since : ended.has(id)),
  };
}

function isFinished(data: unknown): boolean {
  return typeof data === 'object' && data !== null && (data as { finished?: unknown }).finished === true;
}
