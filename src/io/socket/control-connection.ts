/**
 * One connection of the control socket: its bytes split into request lines, each answered in turn (replies keep
 * request order), and its cost bounded by backpressure both ways (docs/protocol.md, "Limits"). The server
 * (socket-server.ts) decides what a request answers; this file only moves bytes.
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
  new Connection(socket, ctx).serve();
}

/**
 * Backpressure: a client sending faster than it reads is not read from until its replies drain, and no reply is
 * made before the last drained, so neither buffer grows without bound. A client reading nothing for idleMs while a
 * reply waits is closed.
 */
class Connection {
  private readonly decoder: LineDecoder;
  /** Requests are answered one after another, so replies keep request order. */
  private chain: Promise<void> = Promise.resolve();
  private pending = 0;
  private pendingBytes = 0;
  private ended = false;
  /** A line over the cap was refused: the rest of the client's bytes are never read. */
  private closing = false;
  private throttled = false;
  /** True while a reply waits for the client to take the last one. */
  private draining = false;

  constructor(
    private readonly socket: Socket,
    private readonly ctx: ConnectionContext,
  ) {
    this.decoder = new LineDecoder(ctx.lineMax);
  }

  serve(): void {
    const { socket, ctx } = this;
    socket.on('drain', () => this.unthrottle());
    socket.setTimeout(ctx.idleMs);
    socket.on('timeout', () => {
      ctx.counters.idleClosed++;
      socket.destroy();
    });
    socket.on('data', (chunk: Buffer) => this.read(chunk));
    socket.on('end', () => {
      if (!this.closing) for (const line of jsonLines(this.decoder.end())) this.handle(line);
      this.ended = true;
      this.finishIfDone();
    });
    socket.on('error', (err) => {
      ctx.counters.writeFailures++;
      ctx.log(`control socket: connection error: ${err.message}`);
    });
  }

  private read(chunk: Buffer): void {
    if (this.closing) return;
    for (const line of jsonLines(this.decoder.push(chunk))) {
      if (line.ok || !line.tooLong) {
        this.handle(line);
        continue;
      }
      // Refused without buffering more: answer, then hang up.
      this.ctx.counters.tooLong++;
      this.handle(line);
      this.closing = true;
      this.ended = true;
      this.socket.pause();
      this.finishIfDone();
      break;
    }
  }

  private handle(line: DecodedLine): void {
    const { socket, ctx } = this;
    ctx.counters.requests++;
    this.pending++;
    const size = line.ok ? line.text.length : 0;
    this.pendingBytes += size;
    if (this.pending >= PENDING_MAX || this.pendingBytes >= PENDING_MAX_BYTES) this.throttle();
    this.armIdle();
    this.chain = this.chain
      .then(async () => {
        await this.drained();
        if (socket.destroyed) return;
        this.send(await ctx.answer(line));
      })
      .catch((err: unknown) => ctx.log(`control socket: request failed: ${messageOf(err)}`))
      .finally(() => {
        this.pending--;
        this.pendingBytes -= size;
        this.armIdle();
        this.unthrottle();
        this.finishIfDone();
      });
  }

  private send(reply: Reply): void {
    const { socket, ctx } = this;
    if (!reply.ok) ctx.counters.errorReplies++;
    if (socket.destroyed || !socket.writable) {
      ctx.counters.writeFailures++;
      return;
    }
    try {
      if (!socket.write(ctx.replyLine(reply))) this.throttle();
    } catch (err) {
      ctx.counters.writeFailures++;
      ctx.log(`control socket: reply not written: ${messageOf(err)}`);
    }
  }

  private finishIfDone(): void {
    const { socket } = this;
    if (!this.ended || this.pending > 0 || socket.destroyed) return;
    // After a refused line the rest of the client's bytes are never read: hang up fully.
    if (this.closing) socket.end(() => socket.destroy());
    else socket.end();
  }

  /**
   * The idle clock runs while nothing is asked (a silent client) and while a reply waits to be read (a stalled
   * one); it stops while a request is answered (a long poll is not idleness).
   */
  private armIdle(): void {
    // After a refused line the connection is only finishing its last reply.
    this.socket.setTimeout(this.draining || (this.pending === 0 && !this.closing) ? this.ctx.idleMs : 0);
  }

  private throttle(): void {
    if (this.throttled || this.closing) return;
    this.throttled = true;
    this.socket.pause();
  }

  private unthrottle(): void {
    const { socket } = this;
    if (!this.throttled || this.closing || this.pending > PENDING_LOW || this.pendingBytes > PENDING_MAX_BYTES / 16 || socket.writableNeedDrain) return;
    this.throttled = false;
    socket.resume();
  }

  /** Resolves once the last reply has drained to the client (or the connection closed). */
  private drained(): Promise<void> {
    const { socket } = this;
    if (!socket.writableNeedDrain || socket.destroyed) return Promise.resolve();
    this.ctx.counters.drainWaits++;
    this.draining = true;
    this.armIdle();
    return new Promise<void>((resolve) => {
      const done = (): void => {
        socket.off('drain', done);
        socket.off('close', done);
        this.draining = false;
        this.armIdle();
        resolve();
      };
      socket.on('drain', done);
      socket.on('close', done);
    });
  }
}
