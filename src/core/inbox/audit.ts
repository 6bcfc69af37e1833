/**
 * The inbox's audit log (docs/agents.md, "The inbox"): an entry per question and per answer, with who answered,
 * when, and the tool's arguments masked. Pure: the entry and its line; the board makes them, the state database
 * keeps them (src/io/storage/ask-log.ts).
 */
import { sanitizeLine } from '../text/sanitize.js';

/** What happened to a question. */
export const AUDIT_EVENTS = ['asked', 'answered', 'cancelled'] as const;
export type AuditEvent = (typeof AUDIT_EVENTS)[number];

/** Characters of a question's arguments kept in one entry. */
export const AUDIT_ARGS_MAX = 2000;

/** One entry of the log. */
export interface AuditEntry {
  readonly at: number;
  readonly event: AuditEvent;
  readonly qid: string;
  readonly panel: number;
  readonly label: string;
  readonly tool: string;
  /** The tool's arguments (or diff), secrets masked, one `; `-joined line, at most AUDIT_ARGS_MAX. */
  readonly args: string;
  /** The option chosen (`Allow once (allow-once)`), for an answer. */
  readonly option?: string;
  /** Who answered: `key`, `tai ask`, `lead`, `rule R3`, `default after 30s`, `flood`, `list key`. */
  readonly by?: string;
  /** The rule that answered, when one did. */
  readonly rule?: string;
  /** Why it was cancelled. */
  readonly why?: string;
}

/** The arguments of a question's detail lines as one bounded line. */
export function argsLine(detail: readonly { readonly text: string }[]): string {
  const line = detail.map((d) => d.text.trim()).filter((t) => t !== '').join('; ');
  return line.length > AUDIT_ARGS_MAX ? `${line.slice(0, AUDIT_ARGS_MAX - 1)}…` : line;
}

/** An entry as `tai ask log` prints it: time, question, agent, tool, what happened, arguments. */
export function auditLine(e: AuditEntry): string {
  const when = new Date(e.at).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
  const what =
    e.event === 'asked' ? 'asked' : e.event === 'answered' ? `answered ${e.option ?? ''} by ${e.by ?? 'someone'}` : `cancelled (${e.why ?? 'no reason'})`;
  const args = e.args === '' ? '' : ` · ${e.args}`;
  return sanitizeLine(`${when}  ${e.qid}  panel ${e.panel} ${e.label} · ${e.tool} · ${what}${args}`);
}
