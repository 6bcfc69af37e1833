/**
 * The folder `src/io/socket/`: the control socket's safe path, this server, and the CLI's typed client. This file
 * only translates JSON lines to Commands and Replies to lines (docs/spec.md, "The vpane protocol"); the
 * dispatcher decides. Bad input harms nobody and what one connection can cost is bounded (docs/protocol.md,
 * "Limits"); a failing write is logged and counted, never thrown.
 */
import { chmodSync, rmdirSync, unlinkSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { dirname } from 'node:path';
import type { AgentService } from '../../core/agents/agent-service.js';
import { parseCommand } from '../../core/protocol/command-json.js';
import { RequestError } from '../../core/errors.js';
import { REQUEST_LINE_MAX, type DecodedLine } from '../../core/protocol/request-lines.js';
import type { Board } from '../../../store/board.js';
import { dispatch, type Reply } from '../../../store/dispatch.js';
import { POLL_WAIT_MAX } from '../../core/policy.js';
import { serveConnection, type ConnectionContext, type ControlCounters } from './control-connection.js';
import { fileLimit } from './file-limit.js';
import type { LeadTraffic } from './lead-traffic.js';
import { claimSocketPlace, clearStaleSocket, socketDir, socketPath, sweepDeadSockets } from './socket-path.js';

/** A connection that sends nothing for this long is closed; so is one that reads no reply for this long. */
export const CONTROL_IDLE_TIMEOUT_MS = 10_000;

/** Connections open at once; the next one gets `too many connections (limit N)` and is closed. */
export const CONTROL_CONNECTIONS_MAX = 4_096;

/** Open files kept for everything but connections (ptys, agents' pipes, the database, logs). */
const FILES_RESERVED = 256;

/** The largest reply line, in bytes; a larger one is replaced by `reply too large (...)`. */
export const CONTROL_REPLY_MAX_BYTES = 8 * 1_048_576;

/** A request not answered this long after its turn came (plus a poll's wait) gets `request not answered within N ms`. */
export const CONTROL_REQUEST_DEADLINE_MS = 30_000;

/** How to start the control server. */
export interface ControlServerOptions {
  /**
   * The board, or a promise of it: the cockpit listens before its board exists (so the main program never finds
   * the socket missing), and early requests wait for it.
   */
  readonly board: Board | PromiseLike<Board>;
  /** Starts, polls and reads agents; may arrive with the board (a promise). */
  readonly agents?: AgentService | PromiseLike<AgentService | undefined>;
  /** The socket path; default socketPath() for this process. Its folder is checked (0700, ours). */
  readonly path?: string;
  /** The clock handed to the dispatcher; tests pass fake time. */
  readonly now?: () => number;
  readonly idleTimeoutMs?: number;
  readonly lineMaxBytes?: number;
  /** Connections open at once; default CONTROL_CONNECTIONS_MAX, lowered to fit the open-file limit. */
  readonly connectionsMax?: number;
  readonly replyMaxBytes?: number;
  readonly requestDeadlineMs?: number;
  /** Where the fallback socket folder is (XDG_STATE_HOME); default process.env. */
  readonly env?: NodeJS.ProcessEnv;
  /** Where failures that cannot be replied are reported. */
  readonly log?: (line: string) => void;
  /** Told of each request and its reply, when the cockpit wakes its lead (lead-traffic.ts). */
  readonly traffic?: LeadTraffic;
}

export type { ControlCounters } from './control-connection.js';

/** A listening control server. */
export interface ControlServer {
  readonly path: string;
  readonly counters: ControlCounters;
  /** Connections open right now. */
  readonly open: number;
  /** How many connections may be open at once. */
  readonly connectionsMax: number;
  /** Bytes of replies written but not yet taken by clients, over every connection. */
  readonly buffered: number;
  /**
   * Set when the cockpit could not listen where it asked (an unsafe folder) and listens in a safe one: why and
   * where, for the user's screen, not only the log.
   */
  readonly warning?: string;
  /** Stops listening, drops every connection and removes the socket file. */
  close(): Promise<void>;
}

/** Listens on the control socket; resolves once it accepts connections. */
export async function startControlServer(options: ControlServerOptions): Promise<ControlServer> {
  const env = options.env ?? process.env;
  const place = claimSocketPlace(options.path ?? socketPath(process.pid, socketDir(env)), env);
  const path = place.path;
  sweepDeadSockets(dirname(path));
  await clearStaleSocket(path);

  const log = options.log ?? (() => {});
  const connectionsMax = connectionsCap(options, log);
  const warning = place.warning;
  if (warning !== undefined) log(`control socket: ${warning}`);
  const counters = newCounters();
  const sockets = new Set<Socket>();
  const ctx: ConnectionContext = {
    counters,
    idleMs: options.idleTimeoutMs ?? CONTROL_IDLE_TIMEOUT_MS,
    lineMax: options.lineMaxBytes ?? REQUEST_LINE_MAX,
    log,
    replyLine: replyLineWithin(options.replyMaxBytes ?? CONTROL_REPLY_MAX_BYTES, counters),
    answer: answerInTime(answerer(options, log), options.requestDeadlineMs ?? CONTROL_REQUEST_DEADLINE_MS, counters),
  };

  const server: Server = createServer({ allowHalfOpen: true }, (socket) => accept(socket, sockets, connectionsMax, ctx));
  await listen(server, path);
  server.on('error', (err) => log(`control socket: server error: ${err.message}`));

  const removeOnExit = (): void => removeSocketFile(path, place.ownDir);
  process.once('exit', removeOnExit);

  let closed: Promise<void> | undefined;
  return {
    path,
    counters,
    connectionsMax,
    ...(warning === undefined ? {} : { warning }),
    get open() {
      return sockets.size;
    },
    get buffered() {
      let bytes = 0;
      for (const s of sockets) bytes += s.writableLength;
      return bytes;
    },
    close() {
      closed ??= new Promise<void>((resolve) => {
        process.off('exit', removeOnExit);
        for (const s of sockets) s.destroy();
        server.close(() => {
          removeOnExit();
          resolve();
        });
      });
      return closed;
    },
  };
}

/** Serves a new connection, or refuses it with the cap's error when `max` are open. */
function accept(socket: Socket, sockets: Set<Socket>, max: number, ctx: ConnectionContext): void {
  const { counters } = ctx;
  if (sockets.size >= max) {
    counters.refused++;
    socket.on('error', () => {});
    socket.end(`${JSON.stringify({ ok: false, error: `too many connections (limit ${max})` })}\n`, () => socket.destroy());
    return;
  }
  counters.connections++;
  sockets.add(socket);
  socket.on('close', () => sockets.delete(socket));
  serveConnection(socket, ctx);
}

/** Removes the socket file, and its folder when the server made it. */
function removeSocketFile(path: string, ownDir: string | undefined): void {
  try {
    unlinkSync(path);
    if (ownDir !== undefined) rmdirSync(ownDir);
  } catch {
    // Already gone.
  }
}

/** Connections allowed at once: the option, else the cap lowered to fit the open-file limit; logged when under the cap. */
function connectionsCap(options: ControlServerOptions, log: (line: string) => void): number {
  // Node has already raised the soft limit to the hard one; what is left must also serve ptys, pipes and files.
  const files = fileLimit();
  const max = options.connectionsMax ?? Math.max(16, Math.min(CONTROL_CONNECTIONS_MAX, (files?.soft ?? Infinity) - FILES_RESERVED));
  if (max < CONTROL_CONNECTIONS_MAX) log(`control socket: at most ${max} connections (open-file limit ${files?.soft ?? '?'})`);
  return max;
}

function newCounters(): ControlCounters {
  return { connections: 0, requests: 0, errorReplies: 0, writeFailures: 0, idleClosed: 0, tooLong: 0, refused: 0, drainWaits: 0, tooLarge: 0, deadlines: 0 };
}

/** Listens on `path` (only the owner may connect); rejects when it cannot. */
async function listen(server: Server, path: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ path, backlog: 4_096 }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  chmodSync(path, 0o600);
}

/** The reply line, or the cap's error in its place. */
function replyLineWithin(replyMax: number, counters: ControlCounters): (reply: Reply) => string {
  return (reply) => {
    const line = JSON.stringify(reply);
    // A UTF-16 unit is at most 3 UTF-8 bytes: only long lines need counting.
    const bytes = line.length * 3 <= replyMax ? 0 : Buffer.byteLength(line);
    if (bytes <= replyMax) return `${line}\n`;
    counters.tooLarge++;
    counters.errorReplies++;
    return `${JSON.stringify({ ok: false, error: `reply too large (${bytes} bytes, limit ${replyMax} bytes); ask for less (record_read limit)` })}\n`;
  };
}

/** The answer, or the deadline's error when it takes longer than the deadline (plus a poll's wait). */
function answerInTime(answer: (line: DecodedLine) => Promise<Reply>, deadlineMs: number, counters: ControlCounters): (line: DecodedLine) => Promise<Reply> {
  return async (line) => {
    const wait = line.ok ? pollWaitMs(line.value) : 0;
    const limit = deadlineMs + wait;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<Reply>((resolve) => {
      timer = setTimeout(() => {
        counters.deadlines++;
        resolve({ ok: false, error: `request not answered within ${limit} ms` });
      }, limit);
    });
    try {
      return await Promise.race([answer(line), late]);
    } finally {
      clearTimeout(timer);
    }
  };
}

/** A decoded line's reply from the dispatcher, once the board (and the agents) exist; the lead's traffic told of both. */
function answerer(options: ControlServerOptions, log: (line: string) => void): (line: DecodedLine) => Promise<Reply> {
  const now = options.now ?? Date.now;
  return async (line) => {
    if (!line.ok) return { ok: false, error: line.error };
    const command = parseCommand(line.value);
    if (command instanceof RequestError) return { ok: false, error: command.message };
    const [board, agents] = await Promise.all([options.board, options.agents]);
    options.traffic?.asked(command, now());
    let reply: Reply = { ok: false, error: 'not answered' };
    try {
      reply = await dispatch(command, { board, now: now(), ...(agents ? { agents } : {}), log });
      return reply;
    } finally {
      options.traffic?.answered(command, reply, now());
    }
  };
}

/** A poll's wait in ms as the dispatcher will use it (clamped like command-json does), else 0. */
function pollWaitMs(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  const v = value as { cmd?: unknown; wait?: unknown };
  return v.cmd === 'poll' && typeof v.wait === 'number' && v.wait > 0 ? Math.min(v.wait * 1000, POLL_WAIT_MAX) : 0;
}
