/**
 * The typed client of the control socket, for the CLI, the tests and the benchmark: `call` opens a connection per
 * request, as the original does; ControlConnection sends several in sequence. Each call gives up after
 * ORCH_CALL_TIMEOUT_MS unless told, a waiting poll's wait on top.
 */
import { connect, type Socket } from 'node:net';
import type { Command } from '../../core/protocol/commands.js';
import { messageOf } from '../../core/errors.js';
import { LineDecoder } from '../../core/decoders/lines.js';
import { jsonLines, type DecodedLine } from '../../core/protocol/request-lines.js';
import { ORCH_CALL_TIMEOUT_MS, POLL_WAIT_MAX } from '../../core/policy.js';
import type { Reply, ReplyData } from '../../../store/dispatch.js';
import { replyShapeProblem } from './reply-shape.js';
import { findLiveSockets } from './socket-path.js';
import { runningCockpits } from '../link/link-place.js';

/** No cockpit answers at the path (none given, no file, nobody listening). */
export class CockpitUnreachableError extends Error {
  override readonly name = 'CockpitUnreachableError';
}

/** The cockpit did not answer in time, or answered something that is not a reply. */
export class CallFailedError extends Error {
  override readonly name = 'CallFailedError';
}

/** The cockpit answered, but its reply's data is not what the command answers with. */
export class MalformedReplyError extends Error {
  override readonly name = 'MalformedReplyError';
}

/** How long to wait. */
export interface CallOptions {
  readonly timeoutMs?: number;
}

const CLOSED = new CallFailedError('connection closed');

/** Replies can be large (status, a record page); still bounded. */
const REPLY_MAX_BYTES = 64 * 1_048_576;

/** The typed reply to a command. */
export type ReplyTo<C extends Command> = Reply<ReplyData<C['cmd']>>;

/** Sends one command on a fresh connection and returns its reply. */
export async function call<C extends Command>(path: string, command: C, options: CallOptions = {}): Promise<ReplyTo<C>> {
  const line = await callRaw(path, JSON.stringify(command), { timeoutMs: timeoutFor(command, options) });
  return checkedReply(command, line);
}

/** Sends one raw line (a newline is added if missing) and returns the first reply line, unparsed. */
export async function callRaw(path: string, line: string, options: CallOptions = {}): Promise<string> {
  const conn = await ControlConnection.open(path, options);
  try {
    return await conn.raw(line, options);
  } finally {
    conn.close();
  }
}

/** One connection carrying several requests in sequence; replies come back in order. */
export class ControlConnection {
  private readonly decoder = new LineDecoder(REPLY_MAX_BYTES);
  private readonly waiting: Array<{ resolve: (line: string) => void; reject: (err: Error) => void; timer: NodeJS.Timeout }> = [];
  private failure: Error | undefined;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      for (const line of jsonLines(this.decoder.push(chunk))) this.deliver(line);
    });
    const hungUp = (): void => {
      if (this.waiting.length > 0 || !this.failure) this.fail(new CallFailedError('the cockpit closed the connection without a reply'));
    };
    socket.on('end', hungUp);
    socket.on('error', (err) => this.fail(new CallFailedError(`connection failed: ${err.message}`)));
    socket.on('close', hungUp);
  }

  /**
   * Connects; a missing or dead socket is a CockpitUnreachableError. A full
   * accept queue (EAGAIN: the cockpit is flooded) is retried until the timeout.
   */
  static async open(path: string, options: CallOptions = {}): Promise<ControlConnection> {
    const timeoutMs = options.timeoutMs ?? ORCH_CALL_TIMEOUT_MS;
    const deadline = Date.now() + timeoutMs;
    for (let pause = 2; ; pause = Math.min(pause * 2, 50)) {
      try {
        return new ControlConnection(await connectOnce(path, Math.max(1, deadline - Date.now()), timeoutMs));
      } catch (err) {
        if (!(err instanceof QueueFullError) || Date.now() + pause >= deadline) {
          throw err instanceof QueueFullError ? new CallFailedError(`the cockpit at ${path} accepted no connection within ${timeoutMs} ms`) : err;
        }
        await new Promise<void>((resolve) => setTimeout(resolve, pause));
      }
    }
  }

  /** Sends a command and returns its typed reply. */
  async request<C extends Command>(command: C, options: CallOptions = {}): Promise<ReplyTo<C>> {
    return checkedReply(command, await this.raw(JSON.stringify(command), { timeoutMs: timeoutFor(command, options) }));
  }

  /** Sends one raw line and returns the reply line it gets, unparsed. */
  raw(line: string, options: CallOptions = {}): Promise<string> {
    if (this.failure) return Promise.reject(this.failure);
    const timeoutMs = options.timeoutMs ?? ORCH_CALL_TIMEOUT_MS;
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        // A reply that comes later would answer the wrong request: give the connection up.
        this.fail(new CallFailedError(`no reply from the cockpit within ${timeoutMs} ms`));
        this.socket.destroy();
      }, timeoutMs);
      this.waiting.push({ resolve, reject, timer });
      this.socket.write(line.endsWith('\n') ? line : `${line}\n`);
    });
  }

  /** Closes the connection; outstanding requests fail. */
  close(): void {
    // Building an Error is not free; only outstanding requests need one.
    if (this.waiting.length > 0) this.fail(new CallFailedError('connection closed'));
    else this.failure ??= CLOSED;
    this.socket.destroy();
  }

  private deliver(line: DecodedLine): void {
    const next = this.waiting.shift();
    if (!next) return;
    clearTimeout(next.timer);
    if (line.ok) next.resolve(line.text);
    else next.reject(new CallFailedError(`unreadable reply: ${line.error}`));
  }

  private fail(err: Error): void {
    this.failure ??= err;
    for (const w of this.waiting.splice(0)) {
      clearTimeout(w.timer);
      w.reject(err);
    }
  }
}

/** The kernel refused a connection because the listener's accept queue is full. */
class QueueFullError extends Error {}

function connectOnce(path: string, waitMs: number, timeoutMs: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new CallFailedError(`no answer from the cockpit at ${path} within ${timeoutMs} ms`));
    }, waitMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (err.code === 'EAGAIN') reject(new QueueFullError(err.message));
      else if (err.code === 'ENOENT' || err.code === 'ECONNREFUSED' || err.code === 'ENOTSOCK' || err.code === 'EACCES') {
        reject(new CockpitUnreachableError(`no cockpit at ${path} (${err.code})`));
      } else reject(new CallFailedError(`cannot connect to ${path}: ${err.message}`));
    });
  });
}

/** The socket to talk to, or why there is none (a message for the user). */
export type SocketChoice = { readonly path: string } | { readonly path?: undefined; readonly why: string };

/**
 * The socket to talk to: `--socket PATH`, else TAI_PLEXER_SOCKET, else the user's only live cockpit in a folder
 * passing checkSocketDir; none or several is a refusal saying why, naming an untrusted folder's owner or mode.
 */
export function resolveSocket(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): SocketChoice {
  if (flag) return { path: flag };
  if (env['TAI_PLEXER_SOCKET']) return { path: env['TAI_PLEXER_SOCKET'] };
  const { live, refused } = findLiveSockets(env);
  const [only] = live;
  if (live.length === 1 && only !== undefined) return { path: only };
  if (live.length > 1) return { why: severalCockpits(live, env) };
  const unsafe = refused.map((e) => `${e.message}.`).join(' ');
  return { why: unsafe === '' ? NO_COCKPIT_HINT : `${unsafe} ${NO_COCKPIT_HINT}` };
}

/**
 * Why no cockpit was chosen when several run: how many, each one's pid and socket (its name holds the pid,
 * socket-path.ts), and how to choose (inside a cockpit TAI_PLEXER_SOCKET chooses).
 */
export function severalCockpits(live: readonly string[], env: NodeJS.ProcessEnv = process.env): string {
  const cards = runningCockpits(env);
  const each = live.map((path) => {
    const pid = /tai-(\d+)\.sock$/.exec(path)?.[1] ?? '?';
    const card = cards.find((c) => c.control === path || String(c.pid) === pid);
    return card === undefined ? `  pid ${pid}: --socket ${path}` : `  ${card.name} (pid ${pid}, ${card.argv.join(' ')}): -t ${card.name}`;
  });
  return `${live.length} cockpits are running; choose one with -t NAME or --socket PATH (tai ls lists them; inside a cockpit, TAI_PLEXER_SOCKET chooses it):\n${each.join('\n')}`;
}

/** Parses a reply line; anything that is not `{ok, data}` / `{ok, error}` is a CallFailedError. */
export function toReply(line: string): Reply {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new CallFailedError(`unreadable reply: ${line.slice(0, 200)}`);
  }
  if (typeof value === 'object' && value !== null && 'ok' in value) {
    const v = value as { ok: unknown; data?: unknown; error?: unknown };
    if (v.ok === true) return { ok: true, data: v.data ?? null };
    if (v.ok === false && typeof v.error === 'string') return { ok: false, error: v.error };
  }
  throw new CallFailedError(`unreadable reply: ${line.slice(0, 200)}`);
}

/** A reply parsed and, when ok, its data checked against what the command answers with. */
function checkedReply<C extends Command>(command: C, line: string): ReplyTo<C> {
  const reply = toReply(line);
  const problem = reply.ok ? replyShapeProblem(command.cmd, reply.data) : null;
  if (problem !== null) throw new MalformedReplyError(`malformed reply to ${command.cmd}: ${problem}; got ${line.slice(0, 200)}`);
  return reply as ReplyTo<C>;
}

function timeoutFor(command: Command, options: CallOptions): number {
  const base = options.timeoutMs ?? ORCH_CALL_TIMEOUT_MS;
  // The cockpit clamps the wait the same way; an unclamped one would overflow the timer.
  return command.cmd === 'poll' && command.wait !== undefined ? base + Math.min(command.wait * 1000, POLL_WAIT_MAX) : base;
}

/** What the CLI says when no cockpit can be reached: how to start one. */
export const NO_COCKPIT_HINT =
  'no cockpit reachable: start one by running `tai` (then use tai inside it, or pass --socket PATH / set TAI_PLEXER_SOCKET)';

/** The CLI's exit code and message for a failed call: 2 when no cockpit is reachable, else 1. */
export function describeCallError(err: unknown): { readonly exitCode: 1 | 2; readonly message: string } {
  if (err instanceof CockpitUnreachableError) return { exitCode: 2, message: `${err.message}; ${NO_COCKPIT_HINT}` };
  if (err instanceof CallFailedError) return { exitCode: 2, message: `${err.message}; is the cockpit still running? ${NO_COCKPIT_HINT}` };
  if (err instanceof MalformedReplyError) return { exitCode: 1, message: `${err.message}; is that a tai cockpit of this version?` };
  return { exitCode: 1, message: messageOf(err) };
}
