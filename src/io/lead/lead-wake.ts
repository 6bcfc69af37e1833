/**
 * Waking an idle lead (`tai --wake`; docs/lead.md, "Waking an idle lead"): when src/core/lead/wake-rules.ts
 * allows, types one line into the main program as the user would. Event-driven: the rules are asked when an agent
 * ends or asks or the lead's traffic changes; one timer only for a "not now"'s deadline, which keys and output
 * merely move later, so they arm nothing. Nothing pending, no timer.
 */
import { decideWake, type WakeDecision, type WakeDelays, type WakeEvent } from '../../core/lead/wake-rules.js';
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
  /** When a pending wait on `id` stops counting; Infinity while only an answer ends it. */
  readonly waitEndsAt?: (id: number) => number;
  /** The open question of agent `id`: each question is an event of its own (a second one opens from the queue with the row still asking). */
  readonly questionOf?: (id: number) => { readonly qid: string; readonly openedAt?: number } | undefined;
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
  /** Arms a one-shot timer for the next deadline and returns its cancel; omitted, the caller calls `tick()` itself. */
  readonly schedule?: (fire: () => void, ms: number) => () => void;
}

/** A running wake-up. */
export interface LeadWake {
  /** The user typed into the main pane. */
  noteKeys(): void;
  /** The main program wrote output. */
  noteOutput(): void;
  /** Looks at the agents and types a line when the rules allow; returns the line typed, if any. */
  tick(): string | undefined;
  /** Something the rules depend on changed (an agent's end or question, the lead's traffic): ask them now. */
  poke(): void;
  /** True while events wait to be told (a deadline may be armed). */
  readonly pending: boolean;
  stop(): void;
}

/** A pending event, with the row it came from and, for a question, since when it is open. */
type Pending = WakeEvent & { readonly since: number; readonly row: number };

/** Starts the wake-up. */
export function startLeadWake(o: LeadWakeOptions): LeadWake {
  const wake = new Wake(o);
  return {
    noteKeys: () => void (wake.lastKeyAt = o.now()),
    noteOutput: () => void (wake.lastOutputAt = o.now()),
    tick: () => wake.tick(),
    poke: () => void wake.tick(),
    get pending() {
      return wake.pending.length > 0;
    },
    stop: () => wake.stop(),
  };
}

/** The wake-up's state: the events not told yet, what was told, the last key, output and line, the deadline armed. */
class Wake {
  lastKeyAt: number;
  lastOutputAt: number;
  readonly pending: Pending[] = [];
  #lastSentAt = -Infinity;
  readonly #told = new Set<string>();
  readonly #seen = new Map<number, string>();
  #lastWhy = '';
  #disarm: (() => void) | undefined;
  #stopped = false;

  constructor(private readonly o: LeadWakeOptions) {
    this.lastKeyAt = this.lastOutputAt = o.now();
  }

  tick(): string | undefined {
    if (this.pending.length === 0 && this.o.idle?.() === true) return undefined;
    const now = this.o.now();
    this.#look(now);
    this.#dropTold();
    const decision = this.#decide(now);
    if (decision.line === undefined) {
      if (decision.why !== this.#lastWhy && this.pending.length > 0) this.o.held?.(decision.why);
      this.#lastWhy = decision.why;
      this.#arm(decision.at, now);
      return undefined;
    }
    this.#arm(undefined, now);
    this.#lastWhy = '';
    // The line tells every event pending (decision.told is the pending list itself).
    for (const e of this.pending.splice(0)) this.#done(e);
    this.#lastSentAt = now;
    this.o.type(`${decision.line}\r`);
    this.o.showStatus(`woke the lead: ${decision.line}`);
    return decision.line;
  }

  stop(): void {
    this.#stopped = true;
    this.#arm(undefined, 0);
  }

  #look(now: number): void {
    const o = this.o;
    for (const row of o.status(now).agents) {
      if (row.kind !== 'agent' || !o.isLeads(row.id)) continue;
      const question = row.state === 'asking' ? o.questionOf?.(row.id) : undefined;
      // What is seen of a row: its state, and while it asks, which question is open.
      const mark = question === undefined ? row.state : `asking:${question.qid}`;
      if (this.#seen.get(row.id) === mark) continue;
      this.#seen.set(row.id, mark);
      if (isLive(row.state) && row.state !== 'asking') continue;
      const since = row.state === 'asking' ? (question?.openedAt ?? row.lastEventAt) : 0;
      const key = question === undefined ? `${row.id}:${row.state}:${row.state === 'asking' ? row.lastEventAt : ''}` : `${row.id}:${mark}`;
      if (this.#told.has(key) || this.pending.some((e) => e.key === key)) continue;
      const id = o.jobOf?.(row.id) ?? row.id;
      this.pending.push({ key, id, row: row.id, label: row.label, state: row.state, chars: charsOf(row.reason), since });
    }
  }

  /** What a wait or poll already reported is never typed, now or later; nor the end of an attempt that was retried. */
  #dropTold(): void {
    const o = this.o;
    for (const e of this.pending.filter((p) => o.heard?.(p.state === 'asking' ? p.row : p.id, p.state, p.since) === true)) {
      this.pending.splice(this.pending.indexOf(e), 1);
      this.#done(e);
      o.held?.(`agent #${e.id} ${e.state} was reported to the lead already: not typed`);
    }
    for (const e of this.pending.filter((p) => p.state !== 'asking' && o.superseded?.(p.row) === true)) {
      this.pending.splice(this.pending.indexOf(e), 1);
      this.#done(e);
    }
  }

  #decide(now: number): WakeDecision {
    const o = this.o;
    const waiting = this.pending.filter((e) => o.waitPending?.(e.id) === true);
    const waitEndsAt = o.waitEndsAt === undefined ? undefined : Math.max(...waiting.map((e) => o.waitEndsAt?.(e.id) ?? Infinity));
    return decideWake({
      now,
      lastKeyAt: this.lastKeyAt,
      lastOutputAt: this.lastOutputAt,
      lastSentAt: this.#lastSentAt,
      waitPending: waiting.length > 0,
      ...(waitEndsAt === undefined ? {} : { waitEndsAt }),
      pending: this.pending,
      ...(o.delays === undefined ? {} : { delays: o.delays }),
    });
  }

  /** An event is told (typed or heard): an end is settled, and once the record lets go of its agent, so does this. */
  #done(e: Pending): void {
    this.#told.add(e.key);
    if (e.state === 'asking' || this.o.settled === undefined) return;
    this.o.settled(e.row);
    if (this.o.isLeads(e.row)) return;
    this.#told.delete(e.key);
    this.#seen.delete(e.row);
  }

  /** One timer at most, for the deadline the rules named; none when they named none or nothing is pending. */
  #arm(at: number | undefined, now: number): void {
    this.#disarm?.();
    this.#disarm = undefined;
    const schedule = this.o.schedule;
    if (at === undefined || schedule === undefined || this.#stopped || this.pending.length === 0) return;
    this.#disarm = schedule(() => {
      this.#disarm = undefined;
      this.tick();
    }, Math.max(1, at - now));
  }
}

/** The result's size from a finished row's summary (`exit 0 · 31 chars`), 0 when it does not say. */
function charsOf(reason: string): number {
  const m = /(\d+) chars/.exec(reason);
  return m ? Number(m[1]) : 0;
}
