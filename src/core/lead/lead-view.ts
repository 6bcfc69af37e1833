/**
 * The folder `src/core/lead/`: what a lead agent reads of its workers (docs/lead.md): events in the claim-check
 * view and every reply bounded, as the lead's context is the scarce resource. Pure: the caller fetches results and
 * the clock.
 */
import { codePoints, headOf, tailOf } from '../agents/claim-check.js';
import { sanitize, sanitizeLine, stripSgr } from '../text/sanitize.js';

/** The most characters one reply to a lead holds (a tool result, a `tai wait` line set). */
export const LEAD_REPLY_MAX = 4_000;
/** The head and tail of a result an event shows; the rest is read with `result` or `read_record`. */
export const EVENT_HEAD = 800;
export const EVENT_TAIL = 400;
/**
 * A wait's default: below the shortest tool timeout of the clients that lead (docs/lead.md, "Why 50 seconds"),
 * so a wait answers before the client gives up on it.
 */
export const WAIT_DEFAULT_S = 50;
/** The longest wait asked for at once (Gemini CLI's default MCP timeout is ten minutes). */
export const WAIT_MAX_S = 600;

/** A finished agent: its end and the claim-check view of its result. */
export interface FinishedEvent {
  readonly kind: 'finished';
  readonly id: number;
  readonly label: string;
  readonly state: string;
  readonly reason: string;
  /** The whole result's characters. */
  readonly chars: number;
  readonly recordId?: string;
  readonly exitCode?: number;
  /** The result as the cockpit hands it back (the claim-check view when it was stored). */
  readonly text: string;
}

/** An agent that waits on a question (the one queue of `tai ask`). */
export interface AskingEvent {
  readonly kind: 'asking';
  readonly id: number;
  readonly label: string;
  readonly qid: string;
  readonly tool: string;
  readonly options: readonly { readonly id: string; readonly name: string }[];
}

export type LeadEvent = FinishedEvent | AskingEvent;

/** The head an event shows of a result, and its tail when the two do not meet. */
export function headAndTail(text: string, head = EVENT_HEAD, tail = EVENT_TAIL): { readonly head: string; readonly tail?: string } {
  const total = codePoints(text);
  if (total <= head + tail) return { head: text };
  return { head: headOf(text, head), tail: tailOf(text, tail) };
}

/**
 * An event as the lead reads it: what happened, the result's head (and tail), how to read more. The agent's
 * text is sanitized (docs/security.md), without colours.
 */
export function eventText(e: LeadEvent, door: 'tool' | 'shell' = 'tool'): string {
  const label = sanitizeLine(e.label);
  if (e.kind === 'asking') {
    const options = e.options.map((o) => `${sanitizeLine(o.id)} (${sanitizeLine(o.name)})`).join(', ');
    const how = door === 'tool' ? `the tool answer (qid ${e.qid}, option one of the ids)` : `tai ask answer ${e.qid} OPTION (one of the ids)`;
    return `agent #${e.id} ${label} asks: ${sanitizeLine(e.tool)}\n  question ${e.qid}; options: ${options}\n  answer with ${how}`;
  }
  const { head, tail } = headAndTail(e.text);
  const where = e.recordId ? `record ${e.recordId}` : 'no record (short enough to keep whole)';
  const lines = [
    `agent #${e.id} ${label} ${e.state}${e.reason ? ` (${sanitizeLine(e.reason)})` : ''}: ${e.chars} characters, ${where}`,
    `--- head ---`,
    agentText(head),
  ];
  if (tail !== undefined) lines.push('--- tail ---', agentText(tail));
  if (tail !== undefined || e.recordId) lines.push(`--- more: ${moreOf(e, door)} ---`);
  return lines.join('\n');
}

/** A piece of an agent's result as a lead reads it: sanitized, without colours, its trailing blanks cut. */
function agentText(text: string): string {
  return agentPage(text).trimEnd();
}

/**
 * A page of agent text as a lead reads it (docs/security.md), sanitized as wait's events are. Offsets count the
 * stored text: a bidi character shown as `<U+202E>` is one character of the page.
 */
export function agentPage(text: string): string {
  return stripSgr(sanitize(text));
}

/** How to read the rest of a result: the lead's tools, or the shell's commands. */
function moreOf(e: { readonly id: number; readonly recordId?: string | undefined }, door: 'tool' | 'shell'): string {
  if (door === 'tool') return e.recordId ? `read_record (id ${e.recordId}, offset, limit)` : `result (id ${e.id}, offset)`;
  return e.recordId ? `tai record read ${e.recordId} --offset N` : `tai logs ${e.id}`;
}

/** `text` cut to `max` characters, ending with how to read the rest when cut. */
export function bounded(text: string, more: string, max = LEAD_REPLY_MAX): string {
  if (codePoints(text) <= max) return text;
  const note = `\n[... cut at ${max} of ${codePoints(text)} characters; ${more}]`;
  return `${headOf(text, Math.max(0, max - note.length))}${note}`;
}

/** One page of `text` from `offset` (code points) of at most `limit`, with where the next one starts. */
export function pageOf(text: string, offset: number, limit: number): { readonly text: string; readonly total: number; readonly next: number | null } {
  const total = codePoints(text);
  const rest = tailOf(text, Math.max(0, total - offset));
  const piece = headOf(rest, limit);
  const end = offset + codePoints(piece);
  return { text: piece, total, next: end < total ? end : null };
}

/** Why a wait's timeout is not one, or undefined when it is. */
export function waitTimeoutProblem(seconds: number): string | undefined {
  if (!Number.isFinite(seconds) || seconds < 0 || seconds > WAIT_MAX_S) return `timeout_s takes seconds from 0 to ${WAIT_MAX_S}, got ${seconds}`;
  return undefined;
}
