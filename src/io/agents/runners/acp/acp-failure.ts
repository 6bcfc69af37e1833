/**
 * How a failed ACP turn is said: one line with the kind the one classifier
 * (src/core/outage/classify.ts) finds said first ("rate limited: ...",
 * "connection lost: ...", "model service down: ..."), the agent's last stderr
 * lines when its process is gone, and the failure records the outage rules read.
 */
import { classify, sayFailure } from '../../../../core/outage/classify.js';
import { messageOf, RequestError } from '../../../../core/errors.js';
import { acpFailure, type AcpDecoder } from '../../../../core/decoders/acp.js';
import type { EmitEvent, RunOutcome } from '../runner.js';

/** What the SDK rejects a pending request with when the agent's process is gone. */
const ACP_CLOSED = 'ACP connection closed';

/** What a turn that threw knows of its session. */
export interface FailedTurn {
  readonly err: unknown;
  readonly emit: EmitEvent;
  readonly decoder: AcpDecoder;
  /** Why tai ended the process itself (a hard stop, a close), if it did. */
  readonly ended: string | undefined;
  /** The agent's exit code or signal, null while it runs. */
  readonly exit: number | NodeJS.Signals | null;
  /** Its last stderr lines. */
  readonly lastErr: readonly string[];
}

/** The outcome of a turn that threw: killed, or the error said once with the last stderr lines. */
export function failedOutcome(f: FailedTurn): RunOutcome {
  if (f.ended !== undefined) {
    const lost = f.decoder.lost ? f.decoder.failure : undefined;
    return { state: 'failed', summary: f.ended, ...(lost === undefined ? {} : { failure: [acpFailure(lost)] }) };
  }
  // A session that cannot be resumed is said as is: no outage to classify.
  if (f.err instanceof RequestError) {
    f.emit({ type: 'error', text: f.err.message });
    return { state: 'failed', summary: f.err.message };
  }
  const why = describeError(f.err, Date.now());
  const detail = f.exit !== null && f.lastErr.length > 0 ? ` (${f.lastErr.join(' | ')})` : '';
  f.emit({ type: 'error', text: `${why}${detail}` });
  const stderr = f.lastErr.length > 0 ? [{ stderr: f.lastErr.join('\n'), ...(typeof f.exit === 'number' ? { exitCode: f.exit } : {}) }] : [];
  return { state: 'failed', summary: why, failure: [acpFailure(f.err), ...stderr] };
}

/**
 * One line for a failed turn: its message, its kind said first. An agent
 * that died mid-turn is said so, since the SDK only says its connection closed.
 */
export function describeError(err: unknown, now?: number): string {
  const message = messageOf(err);
  if (message === ACP_CLOSED) return 'the agent exited mid-turn (ACP connection closed)';
  return oneLine(sayFailure(classify(acpFailure(err), now), withData(err, message)));
}

/** One line for a failure an update reported: its message (or `fallback`), its kind said first. */
export function reportedLine(reported: unknown, fallback: string): string {
  const said = typeof reported === 'object' && reported !== null ? (reported as { message?: unknown }).message : undefined;
  return oneLine(sayFailure(classify(acpFailure(reported), Date.now()), typeof said === 'string' ? said : fallback));
}

/**
 * A JSON-RPC error's message with what its `data` adds (`data.message` or `data.details`): "Internal error"
 * alone explains nothing.
 */
function withData(err: unknown, message: string): string {
  const data = typeof err === 'object' && err !== null ? (err as { data?: unknown }).data : undefined;
  if (typeof data !== 'object' || data === null) return message;
  const said = [(data as Record<string, unknown>)['message'], (data as Record<string, unknown>)['details']].filter(
    (part): part is string => typeof part === 'string' && part !== '' && !message.includes(part),
  );
  return said.length === 0 ? message : `${message}: ${said.join(': ')}`;
}

/** A summary is one line: the newlines of a message (Gemini's 429 has one) become spaces. */
function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}
