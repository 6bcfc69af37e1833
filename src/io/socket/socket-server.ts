/**
 * The folder `src/io/socket/`: the control socket: its safe path, this
 * server, and the typed client the CLI uses.
 *
 * The control socket (seed 001, section 3.1): JSON lines on a Unix socket,
 * one reply line per request line. A client may send one request and hang up
 * (the original's way) or several in sequence on one connection; replies come
 * back in request order. This adapter only translates: bytes to Commands
 * (LineDecoder, parseCommand) and Replies to bytes; the dispatcher decides.
 *
 * Bad input harms nobody: a malformed or unknown request gets an error reply
 * and the connection stays usable; a line over the cap gets an error reply and
 * the connection is closed without buffering more; a silent client is closed
 * after `idleTimeoutMs`; a client gone mid-request only loses its reply. A
 * failing socket write is logged and counted, never thrown.
 */
import { chmodSync, unlinkSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { dirname } from 'node:path';
import type { AgentService } from '../../core/agents/agent-service.js';
import { parseCommand } from '../../core/protocol/command-json.js';
import { RequestError, messageOf } from '../../core/errors.js';
import { LineDecoder } from '../../core/decoders/lines.js';
import { jsonLines, REQUEST_LINE_MAX, type DecodedLine } from '../../core/protocol/request-lines.js';
import type { Board } from '../../../store/board.js';
import { dispatch, type Reply } from '../../../store/dispatch.js';
import { clearStaleSocket, ensureSocketDir, socketDir, socketPath, sweepDeadSockets } from './socket-path.js';

/** A connection that sends nothing for this long is closed. */
export const CONTROL_IDLE_TIMEOUT_MS = 10_000;

/** A connection with this many requests waiting is not read from until they drop to PENDING_LOW. */
const PENDING_MAX = 256;
const PENDING_LOW = 16;

/** How to start the control server. */
export interface ControlServerOptions {
  /**
   * The board, or a promise of it: the cockpit can listen before its board
   * exists (so the main program never finds the socket missing), and
   * requests that arrive early wait for it.
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
  /** Where failures that cannot be replied are reported. */
  readonly log?: (line: string) => void;
}

/** Counters for status, tests and the benchmark. */
export interface ControlCounters {
  connections: number;
  requests: number;
  errorReplies: number;
  /** Replies that could not be written (client gone, socket error). */
  writeFailures: number;
  idleClosed: number;
  tooLong: number;
}

/** A listening control server. */
export interface ControlServer {
  readonly path: string;
  readonly counters: ControlCounters;
  /** Connections open right now. */
  readonly open: number;
  /** Stops listening, drops every connection and removes the socket file. */
  close(): Promise<void>;
}

/** Listens on the control socket; resolves once it accepts connections. */
export async function startControlServer(options: ControlServerOptions): Promise<ControlServer> {
  const path = options.path ?? socketPath(process.pid, socketDir());
  const dir = dirname(path);
  ensureSocketDir(dir);
  sweepDeadSockets(dir);
  await clearStaleSocket(path);

  const now = options.now ?? Date.now;
  const log = options.log ?? (() => {});
  const idleMs = options.idleTimeoutMs ?? CONTROL_IDLE_TIMEOUT_MS;
  const lineMax = options.lineMaxBytes ?? REQUEST_LINE_MAX;
  const counters: ControlCounters = { connections: 0, requests: 0, errorReplies: 0, writeFailures: 0, idleClosed: 0, tooLong: 0 };
  const sockets = new Set<Socket>();

  const server: Server = createServer({ allowHalfOpen: true }, (socket) => {
    counters.connections++;
    sockets.add(socket);
    serve(socket);
  });
  server.maxConnections = 16_384;

  function serve(socket: Socket): void {
    const decoder = new LineDecoder(lineMax);
    /** Requests are answered one after another, so replies keep request order. */
    let chain: Promise<void> = Promise.resolve();
    let pending = 0;
    let ended = false;
    let closing = false;

    const finishIfDone = (): void => {
      if (!ended || pending > 0 || socket.destroyed) return;
      // After a refused line the rest of the client's bytes are never read: hang up fully.
      if (closing) socket.end(() => socket.destroy());
      else socket.end();
    };

    const send = (reply: Reply): void => {
      if (!reply.ok) counters.errorReplies++;
      if (socket.destroyed || !socket.writable) {
        counters.writeFailures++;
        return;
      }
      try {
        if (!socket.write(`${JSON.stringify(reply)}\n`)) throttle();
      } catch (err) {
        counters.writeFailures++;
        log(`control socket: reply not written: ${messageOf(err)}`);
      }
    };

    /**
     * Backpressure: a client that sends requests faster than it reads replies
     * is not read from until its replies drain and its queue shrinks, so
     * neither the reply buffer nor the request queue grows without bound.
     */
    let throttled = false;
    const throttle = (): void => {
      if (throttled || closing) return;
      throttled = true;
      socket.pause();
    };
    const unthrottle = (): void => {
      if (!throttled || closing || pending > PENDING_LOW || socket.writableNeedDrain) return;
      throttled = false;
      socket.resume();
    };
    socket.on('drain', unthrottle);

    const handle = (line: DecodedLine): void => {
      counters.requests++;
      pending++;
      if (pending >= PENDING_MAX) throttle();
      socket.setTimeout(0);
      chain = chain
        .then(async () => {
          send(await answer(line));
        })
        .catch((err: unknown) => log(`control socket: request failed: ${messageOf(err)}`))
        .finally(() => {
          pending--;
          if (pending === 0 && !closing) socket.setTimeout(idleMs);
          unthrottle();
          finishIfDone();
        });
    };

    const answer = async (line: DecodedLine): Promise<Reply> => {
      if (!line.ok) return { ok: false, error: line.error };
      const command = parseCommand(line.value);
      if (command instanceof RequestError) return { ok: false, error: command.message };
      const [board, agents] = await Promise.all([options.board, options.agents]);
      return dispatch(command, { board, now: now(), ...(agents ? { agents } : {}), log });
    };

    socket.setTimeout(idleMs);
    socket.on('timeout', () => {
      counters.idleClosed++;
      socket.destroy();
    });
    socket.on('data', (chunk: Buffer) => {
      if (closing) return;
      for (const line of jsonLines(decoder.push(chunk))) {
        if (line.ok || !line.tooLong) {
          handle(line);
          continue;
        }
        // Refused without buffering more: answer, then hang up.
        counters.tooLong++;
        handle(line);
        closing = true;
        ended = true;
        socket.pause();
        finishIfDone();
        break;
      }
    });
    socket.on('end', () => {
      if (!closing) for (const line of jsonLines(decoder.end())) handle(line);
      ended = true;
      finishIfDone();
    });
    socket.on('error', (err) => {
      counters.writeFailures++;
      log(`control socket: connection error: ${err.message}`);
    });
    socket.on('close', () => sockets.delete(socket));
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ path, backlog: 4096 }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  chmodSync(path, 0o600);
  server.on('error', (err) => log(`control socket: server error: ${err.message}`));

  const removeOnExit = (): void => {
    try {
      unlinkSync(path);
    } catch {
      // Already gone.
    }
  };
  process.once('exit', removeOnExit);

  let closed: Promise<void> | undefined;
  return {
    path,
    counters,
    get open() {
      return sockets.size;
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
