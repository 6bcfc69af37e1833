/**
 * One ACP agent kept for one or more turns (docs/spec.md, "Owners and sessions"): its process behind the reaper,
 * `initialize` and `session/new` once, then one `session/prompt` a turn, one turn at a time. Updates become events
 * of the current turn (dropped when none is); `close` resolves once the reaper exited, so nothing is left; a
 * resumed session's replayed history is dropped, as its panel already has the transcript (docs/restore.md).
 */
import type * as acp from '@agentclientprotocol/sdk';
import { spawnGroup, type GroupChild } from '../process-group.js';
import type { EmitEvent } from '../runner.js';
import { answerPermission, type Remembered } from './acp-permission.js';
import { hostOfWrapper } from '../../../remote/remote-agent.js';
import { connectAgent, keepStderr, type Connected } from './acp-connect.js';
import { failedOutcome, reportedLine } from './acp-failure.js';
import { openSession } from './acp-open.js';
import { cancelSession, closeGroup, REMOTE_KILL_GRACE_MS } from './acp-stop.js';
import { currentOf, promptTurn, type AcpTurn, type Current, type TurnEnd, type TurnRequest } from './acp-turn.js';

export type { AcpTurn, TurnEnd, TurnRequest } from './acp-turn.js';

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
    keepStderr(this.#group.stderr, this.#lastErr);
    this.#ready = connectAgent(this.#group, {
      update: (params) => this.#update(params),
      permission: (params) => answerPermission(this.#current, params, this.#remembered),
    }).then((connected) => ((this.#connection = connected.connection), connected));
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
    const current = currentOf(request);
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
        if (this.#current === current && this.#sessionId !== undefined) cancelSession(this.#ready, this.#sessionId);
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
    this.#ended ??= 'the session was closed';
    this.#broken ??= this.#ended;
    this.#closing ??= closeGroup(this.#group, this.#ready, this.#remote ? REMOTE_KILL_GRACE_MS : undefined);
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
      const end = await promptTurn(await this.#ready, sessionId, current, request.prompt);
      if (end.broken !== undefined) this.#broken ??= end.broken;
      return { outcome: end.outcome, reusable: end.reusable };
    } catch (err) {
      this.#broken ??= 'the turn failed';
      const reaper = this.#group.reaper;
      const exit = reaper.exitCode ?? reaper.signalCode;
      return { outcome: failedOutcome({ err, emit: current.emit, decoder: current.decoder, ended: this.#ended, exit, lastErr: this.#lastErr }), reusable: false };
    }
  }

  /** The session, opened once: every later turn continues it. */
  #open(emit: EmitEvent): Promise<string> {
    this.#opened ??= openSession(this.#ready, {
      argv: this.#spec.argv,
      cwd: this.#cwd,
      ...(this.#spec.resume === undefined ? {} : { resume: this.#spec.resume }),
      emit,
      replaying: (on) => void (this.#replay = on),
    }).then((id) => (this.#sessionId = id));
    return this.#opened;
  }

  /** A session/update: counted while a load replays, else the current turn's events and text. */
  #update(params: acp.SessionNotification): void {
    if (this.#replay) {
      this.#replay.count++;
      return;
    }
    const current = this.#current;
    if (!current) return;
    const out = current.decoder.update(params.update);
    current.result.append(out.text);
    for (const event of out.events) current.emit(event);
    // The agent waits for the network with no end (codex-acp retries every half minute, each retry an event):
    // the turn ends as a lost connection, so its panel is held for the network and a fresh agent starts when it is back.
    if (current.decoder.lost && !current.stopping && this.#ended === undefined) this.kill(reportedLine(current.decoder.failure, 'waiting for network'));
  }
}
