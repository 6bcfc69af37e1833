/**
 * One connection of the control socket: its bytes split into request lines,
 * each answered in turn (so replies keep request order), and what it may
 * cost bounded. Backpressure both ways: the next reply is made only once
 * the last one has drained to the client, and the client is not read from
 * while too many of its requests (by count or bytes) wait. A client silent
 * for the idle timeout, or that reads nothing for that long while a reply
 * waits, is closed. The server (socket-server.ts) decides what a request
 * answers; this file only moves bytes.
 */
import type { Socket } from 'node:net';
import { messageOf } from '../../core/errors.js';
import { LineDecoder } from '../../core/decoders/lines.js';
import { jsonLines, type DecodedLine } from '../../core/protocol/request-lines.js';
import type { Reply } from '../../../store/dispatch.js';

/** A connection with this many requests (or bytes of requests) waiting is not read from until they drop to PENDING_LOW. */
const PENDING_MAX = 256;
const PENDING_LOW = 16;
const PENDING_MAX_BYTES = 16 * 1_048_576;

/** Counters for status, tests and the benchmark. */
export interface ControlCounters {
  connections: number;
  requests: number;
  errorReplies: number;
  /** Replies that could not be written (client gone, socket error). */
  writeFailures: number;
  idleClosed: number;
  tooLong: number;
  /** Connections refused past the cap. */
  refused: number;
  /** Times a reply waited for the client to read the one before it. */
  drainWaits: number;
  /** Replies replaced because they were over the cap. */
  tooLarge: number;
  /** Requests answered with the deadline's error. */
  deadlines: number;
}

/** What a connection needs of its server. */
export interface ConnectionContext {
  readonly counters: ControlCounters;
  readonly idleMs: number;
  readonly lineMax: number;
  readonly log: (line: string) => void;
  /** The reply as one line, or the size cap's error in its place. */
  readonly replyLine: (reply: Reply) => string;
  /** The reply to one decoded line (within its deadline); never rejects for a bad request. */
  readonly answer: (line: DecodedLine) => Promise<Reply>;
}

/** Serves one accepted connection until it closes. */
export function serveConnection(socket: Socket, ctx: ConnectionContext): void {
  const { counters, idleMs, lineMax, log, replyLine } = ctx;
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
      if (!socket.write(replyLine(reply))) throttle();
    } catch (err) {
      counters.writeFailures++;
      log(`control socket: reply not written: ${messageOf(err)}`);
    }
  };

  /**
   * Backpressure: a client that sends requests faster than it reads replies
   * is not read from until its replies drain and its queue shrinks, and the
   * next reply is not made until the last one has drained, so neither the
   * reply buffer nor the request queue grows without bound. A client that
   * reads nothing for idleMs while a reply waits is closed.
   */
  let throttled = false;
  let pendingBytes = 0;
  /** True while a reply waits for the client to take the last one. */
  let draining = false;
  /**
   * The idle clock runs while nothing is asked (a silent client) and while a
   * reply waits for the client to read (a stalled client); it stops while a
   * request is being answered (a long poll is not idleness).
   */
  const armIdle = (): void => {
    // After a refused line the connection is only finishing its last reply.
    socket.setTimeout(draining || (pending === 0 && !closing) ? idleMs : 0);
  };
  const throttle = (): void => {
    if (throttled || closing) return;
    throttled = true;
    socket.pause();
  };
  const unthrottle = (): void => {
    if (!throttled || closing || pending > PENDING_LOW || pendingBytes > PENDING_MAX_BYTES / 16 || socket.writableNeedDrain) return;
    throttled = false;
    socket.resume();
  };
  socket.on('drain', unthrottle);
  const drained = (): Promise<void> => {
    if (!socket.writableNeedDrain || socket.destroyed) return Promise.resolve();
    counters.drainWaits++;
    draining = true;
    armIdle();
    return new Promise<void>((resolve) => {
      const done = (): void => {
        socket.off('drain', done);
        socket.off('close', done);
        draining = false;
        armIdle();
        resolve();
      };
      socket.on('drain', done);
      socket.on('close', done);
    });
  };

  const handle = (line: DecodedLine): void => {
    counters.requests++;
    pending++;
    const size = line.ok ? line.text.length : 0;
    pendingBytes += size;
    if (pending >= PENDING_MAX || pendingBytes >= PENDING_MAX_BYTES) throttle();
    armIdle();
    chain = chain
      .then(async () => {
        await drained();
        if (socket.destroyed) return;
        send(await ctx.answer(line));
      })
      .catch((err: unknown) => log(`control socket: request failed: ${messageOf(err)}`))
      .finally(() => {
        pending--;
        pendingBytes -= size;
        armIdle();
        unthrottle();
        finishIfDone();
      });
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
}
