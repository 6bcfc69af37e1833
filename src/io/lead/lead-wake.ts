/**
 * Waking an idle lead (`tai --wake`; docs/lead.md): watches the board for
 * the lead's agents ending or asking, hears the main pane's keys and output
 * through two calls (`noteKeys`, `noteOutput`), and, when the rules of
 * src/core/lead/wake-rules.ts allow, types one line into the main program as
 * the user would (the line, then Enter) and shows it on the status line.
 */
import { decideWake, type WakeDelays, type WakeEvent } from '../../core/lead/wake-rules.js';
import { isLive } from '../../core/panel/panel-state.js';
import type { BoardStatus } from '../../../store/status.js';

/** What the wake-up needs of the cockpit. */
export interface LeadWakeOptions {
  /** The agents' rows now (the board's status). */
  readonly status: (now: number) => BoardStatus;
  /** True for an agent the lead started (over the control socket, not a keyboard @mention), or an attempt of one. */
  readonly isLeads: (id: number) => boolean;
  /** The id the lead holds for a row: a retried job's later attempt answers to its first id; default the row's. */
  readonly jobOf?: (id: number) => number;
  /** True for an attempt whose job went on to another (a retry): its end is not the job's. */
  readonly superseded?: (id: number) => boolean;
  /** True while a wait of the lead on agent `id` is pending (it hears of the event itself). */
  readonly waitPending?: (id: number) => boolean;
  /** True once the lead heard of the event another way (a poll of the job's id reported its end; a question list, the asking panel's question): it is never typed. */
  readonly heard?: (id: number, state: string, since: number) => boolean;
  /** Told when the wake-up is done with an agent's end (typed, heard, superseded): the record may forget it (lead-traffic.ts). */
  readonly settled?: (id: number) => void;
  /** True while the lead has no agent to be woken for: a tick with nothing pending then reads nothing. */
  readonly idle?: () => boolean;
  /** The delays; default the rules' (docs/lead.md). */
  readonly delays?: WakeDelays;
  /** Told why a line waits, each time the reason changes, and of each event dropped as heard (the cockpit's log). */
  readonly held?: (why: string) => void;
  /** Types into the main program, as the user would. */
  readonly type: (text: string) => void;
  /** Shows a line on the status line. */
  readonly showStatus: (line: string) => void;
  readonly now: () => number;
  /** How often the rules are asked (ms); omitted, the caller calls `tick()` itself. */
  readonly everyMs?: number;
}

/** A running wake-up. */
export interface LeadWake {
  /** The user typed into the main pane. */
  noteKeys(): void;
  /** The main program wrote output. */
  noteOutput(): void;
  /** Looks at the agents and types a line when the rules allow; returns the line typed, if any. */
  tick(): string | undefined;
  stop(): void;
}

/** Starts the wake-up. */
export function startLeadWake(o: LeadWakeOptions): LeadWake {
  const start = o.now();
  let lastKeyAt = start;
  let lastOutputAt = start;
  let lastSentAt = -Infinity;
  const told = new Set<string>();
  const seen = new Map<number, string>();
  const pending: (WakeEvent & { readonly since: number; readonly row: number })[] = [];
  let lastWhy = '';
  /** An event is told (typed or heard): an end is settled, and once the record lets go of its agent, so does this. */
  const done = (e: WakeEvent & { readonly row: number }): void => {
    told.add(e.key);
    if (e.state === 'asking' || o.settled === undefined) return;
    o.settled(e.row);
    if (o.isLeads(e.row)) return;
    told.delete(e.key);
    seen.delete(e.row);
  };
  const look = (now: number): void => {
    for (const row of o.status(now).agents) {
      if (row.kind !== 'agent' || !o.isLeads(row.id) || seen.get(row.id) === row.state) continue;
      seen.set(row.id, row.state);
      if (isLive(row.state) && row.state !== 'asking') continue;
      const key = `${row.id}:${row.state}:${row.state === 'asking' ? row.lastEventAt : ''}`;
      if (told.has(key) || pending.some((e) => e.key === key)) continue;
      const id = o.jobOf?.(row.id) ?? row.id;
      pending.push({ key, id, row: row.id, label: row.label, state: row.state, chars: charsOf(row.reason), since: row.state === 'asking' ? row.lastEventAt : 0 });
    }
  };
  const tick = (): string | undefined => {
    if (pending.length === 0 && o.idle?.() === true) return undefined;
    const now = o.now();
    look(now);
    // What a wait or poll already reported is never typed, now or later.
    for (const e of pending.filter((p) => o.heard?.(p.state === 'asking' ? p.row : p.id, p.state, p.since) === true)) {
      pending.splice(pending.indexOf(e), 1);
      done(e);
      o.held?.(`agent #${e.id} ${e.state} was reported to the lead already: not typed`);
    }
    for (const e of pending.filter((p) => p.state !== 'asking' && o.superseded?.(p.row) === true)) {
      pending.splice(pending.indexOf(e), 1);
      done(e);
    }
    const waitPending = pending.some((e) => o.waitPending?.(e.id) === true);
    const decision = decideWake({ now, lastKeyAt, lastOutputAt, lastSentAt, waitPending, pending, ...(o.delays === undefined ? {} : { delays: o.delays }) });
    if (decision.line === undefined) {
      if (decision.why !== lastWhy && pending.length > 0) o.held?.(decision.why);
      lastWhy = decision.why;
      return undefined;
    }
    lastWhy = '';
    // The line tells every event pending (decision.told is the pending list itself).
    for (const e of pending.splice(0)) done(e);
    lastSentAt = now;
    o.type(`${decision.line}\r`);
    o.showStatus(`woke the lead: ${decision.line}`);
    return decision.line;
  };
  const timer = o.everyMs === undefined ? undefined : setInterval(tick, o.everyMs);
  timer?.unref();
  return {
    noteKeys: () => void (lastKeyAt = o.now()),
    noteOutput: () => void (lastOutputAt = o.now()),
    tick,
    stop: () => clearInterval(timer),
  };
}

/** The result's size from a finished row's summary (`exit 0 · 31 chars`), 0 when it does not say. */
function charsOf(reason: string): number {
  const m = /(\d+) chars/.exec(reason);
  return m ? Number(m[1]) : 0;
}
