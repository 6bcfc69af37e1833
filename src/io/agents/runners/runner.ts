/**
 * The folder `src/io/agents/runners/`: one runner per kind of agent (the ACP one in `acp/`), their table, the
 * process group behind a reaper, and this contract (docs/architecture.md, "Glossary": runner): start, hear its
 * events, stop softly, stop hard, so the service supervises every kind alike. A result is kept whole on a stop,
 * so the caller gets the partial one; a session key is honoured only by kinds that can keep an agent (acp).
 */
import type { FailureInput } from '../../../core/outage/classify.js';
import type { CommandOf } from '../../../core/protocol/commands.js';
import type { AgentEvent } from '../../../core/events.js';
import type { FinalState } from '../../../core/panel/panel-state.js';
import type { DefaultAnswer, PermissionPolicy, QuestionAnswer, QuestionAsk } from '../../../core/agents/questions.js';

/** What to start. */
export interface RunSpec {
  /** The program and its arguments (ignored by the in-process worker). */
  readonly argv: readonly string[];
  readonly cwd?: string;
  /** The folder the agent itself runs in, when not `cwd` (an agent on a host, docs/remote.md): what ACP's session/new names. */
  readonly agentCwd?: string;
  /** The task for agents that take a prompt (ACP, Claude, Codex, CAP). */
  readonly prompt?: string;
  readonly env?: Readonly<Record<string, string>>;
  /** ACP: accept permission requests instead of rejecting them (the synonym of `permissions: 'allow'`). */
  readonly allow?: boolean;
  /** What the agent's permission requests get (acp, claude): asked of the user, allowed or rejected. */
  readonly permissions?: PermissionPolicy;
  /** An unanswered question gets `askDefault` after this many ms. */
  readonly askTimeoutMs?: number;
  readonly askDefault?: DefaultAnswer;
  /** Continue the session kept under this key, or start one kept for the next turn (acp only). */
  readonly session?: string;
  /** Command agents: stdin stays open for steering lines (after the prompt, if any). */
  readonly stdin?: boolean;
  /** Resume the agent's own session of this id (claude `--resume`, codex `exec resume`, ACP `session/load`); docs/restore.md. */
  readonly resume?: string;
}

/** The policy of a spec: `permissions`, else `allow` (the old flag), else reject. */
export function policyOf(spec: RunSpec): PermissionPolicy {
  return spec.permissions ?? (spec.allow ? 'allow' : 'reject');
}

/** What a spawn Command asks a runner to start. */
export function runSpecOf(request: CommandOf<'spawn'>): RunSpec {
  return {
    argv: request.argv,
    ...(request.cwd === undefined ? {} : { cwd: request.cwd }),
    ...(request.prompt === undefined ? {} : { prompt: request.prompt }),
    ...(request.allow === undefined ? {} : { allow: request.allow }),
    ...(request.permissions === undefined ? {} : { permissions: request.permissions }),
    ...(request.ask_timeout === undefined ? {} : { askTimeoutMs: request.ask_timeout * 1000 }),
    ...(request.ask_default === undefined ? {} : { askDefault: request.ask_default }),
    ...(request.session === undefined ? {} : { session: request.session }),
    ...(request.stdin === undefined ? {} : { stdin: request.stdin }),
    ...(request.resume === undefined ? {} : { resume: request.resume }),
  };
}

/** How an agent ended by its own account. */
export interface RunOutcome {
  readonly state: 'done' | 'failed';
  /** One line: the exit code, the stop reason or the error. */
  readonly summary: string;
  /**
   * What a failure said, most decisive first (the turn's ending error, earlier protocol errors, the last stderr
   * lines), for the one classifier to sort once (src/io/outage/agent-outages.ts).
   */
  readonly failure?: readonly FailureInput[];
}

/** A started agent. */
export interface RunningAgent {
  /** The process group the agent runs in (undefined for in-process workers). */
  readonly pgid: number | undefined;
  /** Settles once the agent has ended, never rejects. */
  readonly ended: Promise<RunOutcome>;
  /** The result so far (whole once `ended` settled). */
  result(): string;
  /** Asks the agent to stop at its next step; called at most once. */
  soft(reason: string): void;
  /** Stops the agent now (kills its process group); safe to call again. */
  hard(reason: string): void;
  /**
   * Told the panel's final state once supervision decided it (after `ended`): a kept ACP session is dropped
   * after a timeout (docs/spec.md, "Owners and sessions").
   */
  finished?(state: FinalState): void;
  /**
   * A follow-up message from the user: sent now or queued for the next turn; throws RequestError when it cannot
   * take one now. Absent: the kind takes no messages.
   */
  steer?(text: string): 'sent' | 'queued';
}

/** Where a runner sends its events; called synchronously as they decode. */
export type EmitEvent = (event: AgentEvent) => void;

/**
 * Asks the user through the board's question queue (store/board-questions.ts); `reply` is called once. The
 * question's id, or undefined when it was answered at once.
 */
export type AskUser = (ask: QuestionAsk, reply: (answer: QuestionAnswer) => void) => string | undefined;

/** Starts one kind of agent; `ask` reaches the user (absent: no one to ask, the policy falls back to reject). */
export type Runner = (spec: RunSpec, emit: EmitEvent, ask?: AskUser) => RunningAgent;
