/**
 * One turn of an ACP session: one `session/prompt`, its updates as events (src/core/decoders/acp.ts), its text
 * as result. Only `end_turn`, or `cancelled` after tai asked for the stop, leaves the session reusable; anything
 * else leaves it broken, to be closed by whoever holds it.
 */
import { acpFailure, AcpDecoder, promptUsage } from '../../../../core/decoders/acp.js';
import type { PermissionPolicy } from '../../../../core/agents/questions.js';
import { ResultText } from '../result-text.js';
import type { AskUser, EmitEvent, RunOutcome } from '../runner.js';
import type { PermissionTurn } from './acp-permission.js';
import type { Connected } from './acp-connect.js';
import { reportedLine } from './acp-failure.js';

/** One turn to take. */
export interface TurnRequest {
  readonly prompt: string;
  /** What permission requests get; `ask` needs `ask`, else they are rejected. */
  readonly policy: PermissionPolicy;
  readonly ask?: AskUser;
  readonly askTimeoutMs?: number;
  readonly askDefault?: 'allow' | 'reject';
  readonly emit: EmitEvent;
  /** Say `new session ID` or `continues session ID (turn N)` as the turn's first line. */
  readonly announce?: boolean;
}

/** How a turn ended. */
export interface TurnEnd {
  readonly outcome: RunOutcome;
  /** The session may take another turn. */
  readonly reusable: boolean;
}

/** A turn under way. */
export interface AcpTurn {
  /** Settles once the turn ended and its last notifications landed; never rejects. */
  readonly ended: Promise<TurnEnd>;
  /** The turn's message text so far. */
  result(): string;
  /** session/cancel of this turn (the agent must answer the prompt `cancelled`). */
  soft(): void;
  /** Kills the session's process group while this turn is still its current one. */
  hard(): void;
}

/** The current turn's state, for the connection's handlers. */
export interface Current extends PermissionTurn {
  readonly decoder: AcpDecoder;
  readonly result: ResultText;
  stopping: boolean;
}

/** A new turn's state for `request`. */
export function currentOf(request: TurnRequest): Current {
  const decoder = new AcpDecoder();
  return {
    emit: request.emit,
    decoder,
    result: new ResultText(),
    policy: request.policy,
    ...(request.ask ? { ask: request.ask } : {}),
    ...(request.askTimeoutMs === undefined ? {} : { askTimeoutMs: request.askTimeoutMs }),
    ...(request.askDefault === undefined ? {} : { askDefault: request.askDefault }),
    stopping: false,
    toolName: (id) => decoder.toolName(id),
  };
}

/** The turn's end, and why the session is broken by it, if it is. */
export type PromptEnd = TurnEnd & { readonly broken?: string };

/** Sends the prompt and ends the turn by its answer; rejects as the request does. */
export async function promptTurn({ sdk, connection }: Connected, sessionId: string, current: Current, prompt: string): Promise<PromptEnd> {
  if (current.stopping) return { outcome: { state: 'failed', summary: 'stopped before the prompt' }, reusable: true };
  const response = await connection.agent.request(sdk.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: prompt }] });
  // Gemini CLI and opencode tell the turn's tokens only here.
  const tokens = promptUsage(response);
  if (tokens !== undefined) current.emit({ type: 'usage', tokens });
  const reported = current.decoder.failure;
  if (response.stopReason === 'end_turn' && reported !== undefined && !current.stopping) {
    // codex-acp can end a failed turn end_turn and say the failure only in a session_info_update.
    const why = reportedLine(reported, 'the turn failed');
    return { outcome: { state: 'failed', summary: why, failure: [acpFailure(reported)] }, reusable: false, broken: 'the turn failed' };
  }
  if (response.stopReason === 'end_turn') return { outcome: { state: 'done', summary: 'end_turn' }, reusable: true };
  const honoured = response.stopReason === 'cancelled' && current.stopping;
  const summary = `stop reason ${response.stopReason}`;
  return { outcome: { state: 'failed', summary }, reusable: honoured, ...(honoured ? {} : { broken: summary }) };
}
