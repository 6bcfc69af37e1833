/**
 * One ACP agent kept for one or more turns (docs/spec.md, "Owners and
 * sessions"): its process, in its own group behind the reaper
 * (process-group.ts); its connection through `@agentclientprotocol/sdk` 2.4.0;
 * `initialize` and `session/new` once, on the first turn; then one
 * `session/prompt` per turn, one turn at a time. session/update notifications
 * become events of the turn that is current (src/core/decoders/acp.ts);
 * permission requests are answered by that turn's policy (acp-permission.ts):
 * asked of the user, rejected or accepted, answered `cancelled` once a stop was
 * asked for.
 *
 * Vocabulary:
 * - turn: one prompt and its answer. Its events go to its own emit (its
 *   panel) and its message text is its own result; notifications that arrive
 *   while no turn is current are dropped.
 * - reusable: a turn that ended with `end_turn`, or with `cancelled` after
 *   tai asked for the stop, leaves the session fit for another turn. An error,
 *   another stop reason, a hard stop or the process gone leave it broken:
 *   whoever holds it must close it.
 * - close: ends the connection and kills the process group; resolves once
 *   the reaper has exited, so no process of the session is left.
 * - resume: a spec with `resume` opens the agent's session of that id instead
 *   of a new one (docs/restore.md): by `session/load` when the agent's
 *   capabilities offer it, else by `session/resume`, else the turn fails with a
 *   RequestError that says so. The history `session/load` replays is dropped,
 *   not shown (the restored panel already has the transcript): one note says
 *   how many updates it held.
 */
import { Writable } from 'node:stream';
import type * as acp from '@agentclientprotocol/sdk';
import { classify, sayFailure } from '../../../../core/outage/classify.js';
import { messageOf, RequestError } from '../../../../core/errors.js';
import { acpFailure, AcpDecoder, promptUsage } from '../../../../core/decoders/acp.js';
import { LineDecoder } from '../../../../core/decoders/lines.js';
import { pacedData, pacedWebStream } from '../../paced-read.js';
import { spawnGroup, type GroupChild } from '../process-group.js';
import { ResultText } from '../result-text.js';
import type { AskUser, EmitEvent, RunOutcome } from '../runner.js';
import type { PermissionPolicy } from '../../../../core/agents/questions.js';
import { answerPermission, type PermissionTurn, type Remembered } from './acp-permission.js';
import { resumeLabel, resumeSession } from './acp-resume.js';
import { hostOfWrapper } from '../../../remote/remote-agent.js';

/** What the SDK rejects a pending request with when the agent's process is gone. */
const ACP_CLOSED = 'ACP connection closed';

/** The last stderr lines kept to explain a failure. */
const STDERR_KEEP = 5;

/** How long a closed session's agent has to end on its stdin's end before it is killed. */
const CLOSE_GRACE_MS = 2_000;

/** Resolves once `exited` settles or `ms` passed, whichever is first. */
function endsWithin(exited: Promise<unknown>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    void exited.then(() => (clearTimeout(timer), resolve()));
  });
}

/** Characters of the agent's session id shown in a panel's first line. */
const SHORT_ID = 8;

/** The agent a session runs: its program, directory and environment. */
export interface AcpSessionSpec {
  readonly argv: readonly string[];
  readonly cwd?: string;
  /** The folder the agent runs in, when not `cwd` (on a host): what session/new and session/load name. */
  readonly agentCwd?: string;
  readonly env?: Readonly<Record<string, string>>;
  /** The agent's own session id to open instead of a new session (acp-resume.ts). */
  readonly resume?: string;
}

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
interface Current extends PermissionTurn {
  readonly decoder: AcpDecoder;
  readonly result: ResultText;
  stopping: boolean;
}

/** The SDK and one connection made with it. */
interface Connected {
  readonly sdk: typeof acp;
  readonly connection: acp.ClientConnection;
}

/**
 * The SDK, loaded on the first ACP session: with zod it is 14 MB of heap
 * that a cockpit with no ACP agent never needs (docs/perf-log.md, idle).
 */
const loadSdk = (): Promise<typeof acp> => import('@agentclientprotocol/sdk');

/** One agent process with one ACP session, taking turns one at a time. */
export class AcpSession {
  readonly #group: GroupChild;
  /** Settles once the SDK is loaded and connected to the agent's pipes. */
  readonly #ready: Promise<Connected>;
  /** The connection once made, for `live`. */
  #connection: acp.ClientConnection | undefined;
  readonly #lastErr: string[] = [];
  #current: Current | undefined;
  #opened: Promise<string> | undefined;
  #sessionId: string | undefined;
  #turns = 0;
  /** "Always" answers, kept for every turn of the session. */
  readonly #remembered: Remembered = new Map();
  /** Why the session may not be used again, once it may not. */
  #broken: string | undefined;
  /** Why tai ended the process itself (a hard stop, a close): a pending turn ends with this, not an error. */
  #ended: string | undefined;
  #closing: Promise<void> | undefined;
  readonly #cwd: string;
  readonly #spec: AcpSessionSpec;
  /** An agent on a host: its local side is the wrapper, which turns a SIGTERM into the host's `stop` (docs/remote.md). */
  readonly #remote: boolean;
  /** Counts the updates `session/load` replays while it runs (they are dropped); undefined otherwise. */
  #replay: { count: number } | undefined;
  /** Settles when the agent's reaper has exited. */
  readonly gone: Promise<void>;

  constructor(spec: AcpSessionSpec) {
    this.#group = spawnGroup(spec.argv, { ...(spec.cwd ? { cwd: spec.cwd } : {}), ...(spec.env ? { env: spec.env } : {}) });
    this.gone = this.#group.exited.then(() => {
      this.#broken ??= 'the agent exited';
    });
    const stderr = new LineDecoder(2_000);
    pacedData<Buffer>(this.#group.stderr, (chunk) => {
      for (const line of stderr.push(chunk)) {
        if (!line.ok) continue;
        this.#lastErr.push(line.text);
        if (this.#lastErr.length > STDERR_KEEP) this.#lastErr.shift();
      }
    });
    // What the agent writes before the SDK is loaded waits in its pipe (paced reading).
    this.#ready = loadSdk().then((sdk) => {
      const connection = sdk
        .client({ name: 'tai' })
        .onNotification(sdk.methods.client.session.update, ({ params }) => {
          if (this.#replay) {
            this.#replay.count++;
            return;
          }
          const current = this.#current;
          if (!current) return;
          const out = current.decoder.update(params.update);
          current.result.append(out.text);
          for (const event of out.events) current.emit(event);
          if (current.decoder.lost && !current.stopping) this.#lose(current);
        })
        .onRequest(sdk.methods.client.session.requestPermission, ({ params }) => answerPermission(this.#current, params, this.#remembered))
        .connect(sdk.ndJsonStream(Writable.toWeb(this.#group.stdin) as WritableStream<Uint8Array>, pacedWebStream(this.#group.stdout)));
      this.#connection = connection;
      return { sdk, connection };
    });
    this.#cwd = spec.agentCwd ?? spec.cwd ?? process.cwd();
    this.#spec = spec;
    this.#remote = hostOfWrapper(spec.argv) !== undefined;
  }

  /** The agent's process group, once its reaper reported it. */
  get pgid(): number | undefined {
    return this.#group.pgid();
  }

  /** True while the session can take another turn: not broken, not closed, its process and connection up. */
  get live(): boolean {
    const reaper = this.#group.reaper;
    return this.#broken === undefined && reaper.exitCode === null && reaper.signalCode === null && !(this.#connection?.signal.aborted ?? false);
  }

  /** Starts a turn; throws when one is already under way (the pool hands out idle sessions only). */
  turn(request: TurnRequest): AcpTurn {
    if (this.#current) throw new Error('an ACP session takes one turn at a time');
    const decoder = new AcpDecoder();
    const current: Current = {
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
    this.#current = current;
    const n = ++this.#turns;
    const ended = this.#take(current, request, n).then(async (end) => {
      // The prompt's response is handled at once, the notifications before it
      // through a few awaits each: let them land in this turn, not the next.
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (this.#current === current) this.#current = undefined;
      return end;
    });
    return {
      ended,
      result: () => current.result.toString(),
      soft: () => {
        current.stopping = true;
        if (this.#current === current && this.#sessionId !== undefined) this.#cancel(this.#sessionId);
      },
      hard: () => {
        if (this.#current !== current) return;
        // A KILL alone would end only the local side, leaving the agent on its host for the host's lost grace:
        // close's SIGTERM reaches the host as a stop first (its own grace then KILLs there), then the KILL here.
        if (this.#remote) {
          this.#ended ??= 'killed after the grace';
          void this.close();
        } else this.kill('killed after the grace');
      },
    };
  }

  /** Kills the process group now; the session is broken and a pending turn ends failed with `why`. */
  kill(why: string): void {
    this.#ended ??= why;
    this.#broken ??= why;
    this.#group.kill();
  }

  /** Ends the connection and the process group; resolves once the process is gone. Safe to call again. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#ended ??= 'the session was closed';
      this.#broken ??= this.#ended;
      (await this.#ready).connection.close();
      this.#group.stdin.end();
      // A moment to end on its stdin's end before the KILL: an agent on another host ends there only so (docs/remote.md).
      await endsWithin(this.#group.exited, CLOSE_GRACE_MS);
      // A reaper that has exited took its group with it; never signal a pgid that may be reused.
      const running = (): boolean => this.#group.reaper.exitCode === null && this.#group.reaper.signalCode === null;
      // The soft stop before the KILL: an agent on a host slow to end is then stopped there, its job ended, not left to the host's grace.
      if (running()) this.#group.signal('SIGTERM');
      await endsWithin(this.#group.exited, CLOSE_GRACE_MS);
      if (running()) this.#group.kill();
      await this.#group.exited;
    })();
    return this.#closing;
  }

  async #take(current: Current, request: TurnRequest, n: number): Promise<TurnEnd> {
    try {
      const sessionId = await this.#open(current.emit);
      current.emit({ type: 'session', id: sessionId });
      if (request.announce && !(n === 1 && this.#spec.resume !== undefined)) {
        const id = sessionId.slice(0, SHORT_ID);
        current.emit({ type: 'note', text: n === 1 ? `new session ${id}` : `continues session ${id} (turn ${n})` });
      }
      if (current.stopping) return { outcome: { state: 'failed', summary: 'stopped before the prompt' }, reusable: true };
      const { sdk, connection } = await this.#ready;
      const response = await connection.agent.request(sdk.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: request.prompt }],
      });
      // Gemini CLI and opencode tell the turn's tokens only here.
      const tokens = promptUsage(response);
      if (tokens !== undefined) current.emit({ type: 'usage', tokens });
      const reported = current.decoder.failure;
      if (response.stopReason === 'end_turn' && reported !== undefined && !current.stopping) {
        // codex-acp can end a failed turn end_turn and say the failure only in a session_info_update.
        this.#broken ??= 'the turn failed';
        const why = reportedLine(reported, 'the turn failed');
        return { outcome: { state: 'failed', summary: why, failure: [acpFailure(reported)] }, reusable: false };
      }
      if (response.stopReason === 'end_turn') return { outcome: { state: 'done', summary: 'end_turn' }, reusable: true };
      const honoured = response.stopReason === 'cancelled' && current.stopping;
      if (!honoured) this.#broken ??= `stop reason ${response.stopReason}`;
      return { outcome: { state: 'failed', summary: `stop reason ${response.stopReason}` }, reusable: honoured };
    } catch (err) {
      return { outcome: this.#failed(current, err), reusable: false };
    }
  }

  /** initialize and session/new (or the resumed session, said to `emit`), once: every later turn continues the same session. */
  #open(emit: EmitEvent): Promise<string> {
    this.#opened ??= (async () => {
      const { sdk, connection } = await this.#ready;
      const init = await connection.agent.request(sdk.methods.agent.initialize, {
        protocolVersion: sdk.PROTOCOL_VERSION,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
        clientInfo: { name: 'tai', version: '0.1.0' },
      });
      const resume = this.#spec.resume;
      if (resume !== undefined) {
        await resumeSession({
          sdk,
          connection,
          init,
          id: resume,
          cwd: this.#cwd,
          label: resumeLabel(this.#spec.argv),
          emit,
          replaying: (on) => void (this.#replay = on),
        });
        this.#sessionId = resume;
        return resume;
      }
      const session = await connection.agent.request(sdk.methods.agent.session.new, { cwd: this.#cwd, mcpServers: [] });
      this.#sessionId = session.sessionId;
      return session.sessionId;
    })();
    return this.#opened;
  }

  /** The outcome of a turn that threw: killed, or the error said once with the last stderr lines. */
  #failed(current: Current, err: unknown): RunOutcome {
    this.#broken ??= 'the turn failed';
    if (this.#ended !== undefined) {
      const lost = current.decoder.lost ? current.decoder.failure : undefined;
      return { state: 'failed', summary: this.#ended, ...(lost === undefined ? {} : { failure: [acpFailure(lost)] }) };
    }
    // A session that cannot be resumed is said as is: no outage to classify.
    if (err instanceof RequestError) {
      current.emit({ type: 'error', text: err.message });
      return { state: 'failed', summary: err.message };
    }
    const reaper = this.#group.reaper;
    const exit = reaper.exitCode ?? reaper.signalCode;
    const lastErr = this.#lastErr;
    const why = describeError(err, Date.now());
    const detail = exit !== null && lastErr.length > 0 ? ` (${lastErr.join(' | ')})` : '';
    current.emit({ type: 'error', text: `${why}${detail}` });
    const stderr = lastErr.length > 0 ? [{ stderr: lastErr.join('\n'), ...(typeof exit === 'number' ? { exitCode: exit } : {}) }] : [];
    return { state: 'failed', summary: why, failure: [acpFailure(err), ...stderr] };
  }

  /**
   * The agent waits for the network with no end (codex-acp retries every
   * half minute, each retry an event): the turn ends as a lost connection,
   * so its panel is held for the network and a fresh agent starts when it is back.
   */
  #lose(current: Current): void {
    if (this.#ended !== undefined) return;
    this.kill(reportedLine(current.decoder.failure, 'waiting for network'));
  }

  #cancel(sessionId: string): void {
    void this.#ready.then(({ sdk, connection }) => connection.agent.notify(sdk.methods.agent.session.cancel, { sessionId })).catch(() => {});
  }
}

/**
 * One line for a failed turn: its message, with the kind the one classifier
 * (src/core/outage/classify.ts) finds said first ("rate limited: ...", "connection
 * lost: ...", "model service down: ..."). An agent that died mid-turn is said
 * so, since the SDK only says its connection closed.
 */
export function describeError(err: unknown, now?: number): string {
  const message = messageOf(err);
  if (message === ACP_CLOSED) return 'the agent exited mid-turn (ACP connection closed)';
  return oneLine(sayFailure(classify(acpFailure(err), now), withData(err, message)));
}

/**
 * A JSON-RPC error's message with what its `data` says besides (codex-acp
 * puts the real reason in `data.message`, others in `data.details`): "Internal
 * error" alone explains nothing.
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
/** One line for a failure an update reported: its message (or `fallback`), its kind said first. */
function reportedLine(reported: unknown, fallback: string): string {
  const said = typeof reported === 'object' && reported !== null ? (reported as { message?: unknown }).message : undefined;
  return oneLine(sayFailure(classify(acpFailure(reported), Date.now()), typeof said === 'string' ? said : fallback));
}

function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}
