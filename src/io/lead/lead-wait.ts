/**
 * Waiting for the next events among some agents (the lead's `wait` and `tai wait`): an agent finished (a retried
 * job only at its last attempt) or asks. Each look polls the pending agents and the question queue, WAIT_LOOK_MS
 * apart, and is told to the caller (its progress notifications).
 */
import type { AgentResult } from '../../core/agents/agent-service.js';
import type { LeadEvent } from '../../core/lead/lead-view.js';
import { sleep } from '../after.js';
import type { LeadBackend } from './lead-backend.js';

/** The pause between two looks (ms). */
export const WAIT_LOOK_MS = 1_000;

/** A refusal to be said as it is (an unknown id, a cockpit's error reply). */
export class LeadRequestError extends Error {
  override readonly name = 'LeadRequestError';
}

/** What to wait for. */
export interface WaitOptions {
  readonly ids: readonly number[];
  /** Until every one finished (an asking agent still ends the wait: it needs an answer); otherwise the first event. */
  readonly all: boolean;
  readonly timeoutMs: number;
  /** The questions reported before (added to as they are reported): each is reported once. */
  readonly seenQuestions: Set<string>;
  readonly signal?: AbortSignal;
  /** Told after each look that found nothing: the time waited so far and the agents still pending. */
  readonly onLook?: (waitedMs: number, pending: readonly number[]) => void;
  readonly lookMs?: number;
}

/** How a wait ended: its events, and whether the time ran out or the caller went away first. */
export interface WaitOutcome {
  readonly events: readonly LeadEvent[];
  readonly timedOut: boolean;
  readonly aborted: boolean;
  /** The agents that had not finished when it ended. */
  readonly pending: readonly number[];
}

/** Waits for the events `options` asks for, among `options.ids`. */
export async function waitForEvents(backend: LeadBackend, options: WaitOptions): Promise<WaitOutcome> {
  const started = Date.now();
  const pending = new Set(options.ids);
  const events: LeadEvent[] = [];
  for (;;) {
    const found = await look(backend, [...pending], options.seenQuestions);
    for (const e of found) {
      events.push(e);
      if (e.kind === 'finished') pending.delete(e.id);
      else options.seenQuestions.add(e.qid);
    }
    const asking = found.some((e) => e.kind === 'asking');
    const ended = pending.size === 0 || asking || (!options.all && events.length > 0);
    const waited = Date.now() - started;
    const timedOut = !ended && waited >= options.timeoutMs;
    const aborted = options.signal?.aborted === true;
    if (ended || timedOut || aborted) return { events, timedOut, aborted: aborted && !ended, pending: [...pending] };
    options.onLook?.(waited, [...pending]);
    await sleep(Math.min(options.lookMs ?? WAIT_LOOK_MS, options.timeoutMs - waited), options.signal);
  }
}

/** The events among `ids` now: finished agents (with their results) and questions not reported yet. */
export async function look(backend: LeadBackend, ids: readonly number[], seen: ReadonlySet<string>): Promise<LeadEvent[]> {
  const polls = await Promise.all(ids.map((id) => backend.call({ cmd: 'poll', id })));
  const finished: AgentResult[] = [];
  for (const reply of polls) {
    if (!reply.ok) throw new LeadRequestError(reply.error);
    if (reply.data.finished) finished.push(reply.data);
  }
  const questions = await backend.call({ cmd: 'ask_list' });
  const asking = questions.ok ? questions.data.filter((q) => q.open && ids.includes(q.panel) && !seen.has(q.qid)) : [];
  const labels = finished.length > 0 ? await labelsOf(backend) : new Map<number, string>();
  return [
    ...finished.map((r): LeadEvent => ({
      kind: 'finished',
      id: r.id,
      label: labels.get(r.id) ?? '',
      state: r.state,
      reason: r.reason,
      chars: r.chars,
      text: r.text,
      ...(r.recordId === undefined ? {} : { recordId: r.recordId }),
      ...(r.exitCode === undefined ? {} : { exitCode: r.exitCode }),
    })),
    ...asking.map((q): LeadEvent => ({ kind: 'asking', id: q.panel, label: q.label, qid: q.qid, tool: q.tool, options: q.options.map((o) => ({ id: o.id, name: o.name })) })),
  ];
}

/** Each agent's label, from the status. */
export async function labelsOf(backend: LeadBackend): Promise<Map<number, string>> {
  const status = await backend.call({ cmd: 'status' });
  return new Map(status.ok ? status.data.agents.map((r) => [r.id, r.label]) : []);
}

