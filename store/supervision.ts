/**
 * A record's life under supervision (docs/spec.md, "Panel state machine", "Supervision"): its clocks, every event
 * a heartbeat, holds, the staged stop and its end. The rules are pure functions of (panel, now) in
 * src/core/panel/panel-state.ts; these apply them to the record passed in. Each stop hook is called at most once;
 * one that throws is logged and counted.
 */
import { messageOf } from '../src/core/errors.js';
import type { AgentEvent } from '../src/core/events.js';
import { assertNever } from '../src/core/never.js';
import { afterEvent, finalState, isLive, stopState, type Decision, type FinalState, type StopCause } from '../src/core/panel/panel-state.js';
import { PendingOutput } from '../src/core/panel/pending.js';
import { ORCH_LABEL_MAX, ORCH_LINGER } from '../src/core/policy.js';
import { maskSecrets } from '../src/core/text/secrets.js';
import type { BoardCounters, HoldOptions, OpenSpec, StopHook } from './board-types.js';
import { clip, clipHeader, rowOf, type PanelRecord } from './panel-record.js';
import type { AgentRow } from './status.js';

/** The parts of the board that supervision acts on. */
export interface Supervisor {
  readonly log: (line: string) => void;
  readonly counters: BoardCounters;
  /** Status rows of ended records, oldest first, at most `historyMax`. */
  readonly history: AgentRow[];
  readonly historyMax: number;
  /** Queues output for a record's screen. */
  queue(rec: PanelRecord, data: string): void;
  /** Takes a record off the board for good. */
  remove(rec: PanelRecord): void;
  /** Closes the record's questions (store/board-questions.ts); `why` completes "question qN ..." for a late answer. */
  closeQuestions?(rec: PanelRecord, why: string, now?: number): void;
  /** The history's rows changed (store/rows-version.ts). */
  historyMoved?(): void;
}

/** The record of a panel opening at `now`, its screen's size until it gets one. */
export function openRecord(id: number, spec: OpenSpec, now: number, size: { readonly cols: number; readonly rows: number }): PanelRecord {
  const kind = spec.kind ?? 'agent';
  // A library may open a panel with a secret in its label or task: masked where the board keeps them (docs/spec.md, "Event sources").
  const label = maskSecrets(spec.label);
  return {
    id,
    kind,
    label: clip(label, ORCH_LABEL_MAX),
    task: maskSecrets(spec.task ?? ''),
    startedAt: now,
    ...(spec.timeoutMs === undefined ? {} : { deadline: now + spec.timeoutMs, timeoutMs: spec.timeoutMs }),
    ...(spec.idleKillMs === undefined ? {} : { idleKillMs: spec.idleKillMs }),
    ...(spec.host === undefined ? {} : { host: spec.host }),
    state: kind === 'agent' ? 'running' : (spec.state ?? 'running'),
    lastEventAt: now,
    lastTextAt: now,
    tools: 0,
    tokens: 0,
    header: clipHeader(spec.header ?? ` ● ${label}`),
    closed: false,
    pending: new PendingOutput(),
    cols: size.cols,
    rows: size.rows,
    softCalled: false,
    hardCalled: false,
  };
}

/** An agent's event reaches its record: a heartbeat (idle runs again), its tools and tokens counted. */
export function heard(rec: PanelRecord, event: AgentEvent, now: number): void {
  rec.lastEventAt = now;
  rec.state = afterEvent(rec.state);
  switch (event.type) {
    case 'tool_start':
      rec.tools++;
      break;
    case 'usage':
      rec.tokens = event.tokens;
      break;
    case 'text':
    case 'thought':
      rec.lastTextAt = now;
      break;
    default:
      break;
  }
}

/** Holds a live agent for an outage: waiting for `service`, its clocks paused; false if it cannot be held. */
export function holdRecord(rec: PanelRecord, service: string, now: number, options: HoldOptions = {}): boolean {
  if (rec.kind !== 'agent' || !isLive(rec.state) || rec.held) return false;
  rec.held = { service, since: now, ...(options.stopWaits === true ? { stopWaits: true } : {}) };
  rec.state = 'waiting';
  return true;
}

/** Ends a hold: running again, the wall clock extended by the time held; false if it was not held. */
export function resumeRecord(rec: PanelRecord, now: number): boolean {
  if (!rec.held || rec.state !== 'waiting') return false;
  if (rec.deadline !== undefined) rec.deadline += now - rec.held.since;
  // A stop that waited for the agent to be reachable gets its whole grace from now.
  if (rec.held.stopWaits === true && rec.stop !== undefined && rec.stop.hardAt === undefined) rec.stop.at = now;
  rec.held = undefined;
  rec.state = 'running';
  rec.lastEventAt = now;
  return true;
}

/** Calls an owner's stop hook; a hook that throws is logged and counted, never thrown on. */
export function callHook(sup: Supervisor, hook: StopHook | undefined, reason: string, id: number): void {
  if (!hook) return;
  try {
    hook(reason);
  } catch (err) {
    sup.counters.hookErrors++;
    sup.log(`panel ${id}: stop hook failed: ${messageOf(err)}`);
  }
}

/** Asks a live agent to stop softly, once; false if it is not a live agent or a stop was already asked for. */
export function requestStop(sup: Supervisor, rec: PanelRecord, cause: StopCause, reason: string, now: number): boolean {
  if (rec.kind !== 'agent' || !isLive(rec.state) || rec.stop) return false;
  rec.stop = { cause, reason, at: now };
  // A stopped agent's open question is answered `cancelled` (the ACP rule).
  sup.closeQuestions?.(rec, `was cancelled: its agent was stopped (${reason})`, now);
  if (rec.soft && !rec.softCalled) {
    rec.softCalled = true;
    callHook(sup, rec.soft, reason, rec.id);
  }
  return true;
}

/** Ends a record: final state, footer, linger and history; a record closed by the user leaves at once. */
export function endRecord(sup: Supervisor, rec: PanelRecord, state: FinalState, summary: string, now: number): FinalState {
  const final = rec.kind === 'agent' ? finalState(state, rec.stop) : state;
  // Stopped by supervision: the footer leads with why it was stopped, not with how the agent took it (`exit 130`).
  const stopped = rec.kind === 'agent' && rec.stop !== undefined && final !== 'done' && !summary.startsWith(rec.stop.reason);
  sup.closeQuestions?.(rec, `is gone: its agent ended (${final})`, now);
  rec.state = final;
  rec.finishedAt = now;
  rec.summary = stopped && rec.stop ? (summary === '' ? rec.stop.reason : `${rec.stop.reason} (${summary})`) : summary;
  summary = rec.summary;
  if (rec.formatter) {
    sup.queue(rec, rec.formatter.release());
    sup.queue(rec, rec.formatter.footer(final, now - rec.startedAt, summary));
  }
  rec.closeAt = now + ORCH_LINGER;
  sup.history.push(rowOf(rec, now));
  if (sup.history.length > sup.historyMax) sup.history.splice(0, sup.history.length - sup.historyMax);
  sup.historyMoved?.();
  if (rec.closed) sup.remove(rec);
  return final;
}

/** Carries out one of the watchdog's decisions on an agent's record. */
export function applyDecision(sup: Supervisor, rec: PanelRecord, decision: Decision, now: number): void {
  switch (decision.type) {
    case 'idle':
      rec.state = 'idle';
      return;
    case 'soft_stop':
      requestStop(sup, rec, decision.cause, decision.reason, now);
      return;
    case 'hard_stop':
      if (!rec.stop) return;
      rec.stop.hardAt = now;
      if (rec.hard && !rec.hardCalled) {
        rec.hardCalled = true;
        callHook(sup, rec.hard, rec.stop.reason, rec.id);
      }
      return;
    case 'force_finish': {
      const reason = rec.stop?.reason ?? 'stopped';
      sup.log(`panel ${rec.id}: the agent did not stop after a hard stop; finished by the board`);
      endRecord(sup, rec, stopState(rec.stop?.cause ?? 'owner'), `${reason}; the agent did not stop`, now);
      return;
    }
    case 'remove':
      sup.remove(rec);
      return;
    default:
      assertNever(decision);
  }
}
