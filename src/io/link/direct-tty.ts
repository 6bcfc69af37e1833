/**
 * A client's terminal taken by the server, as tmux's server does, so a key and its echo never wake the client
 * (docs/protocol.md, "The terminal straight", for the claim and the checks). The writes are made non-blocking again
 * (Node makes a terminal's blocking): a stalled terminal, an ssh that stopped reading, must fall behind and be
 * skipped, not stall the whole cockpit (docs/protocol.md, "Several clients").
 */
import { closeSync, constants, fstatSync, openSync, readlinkSync, writeSync } from 'node:fs';
import { isatty, WriteStream, type ReadStream } from 'node:tty';
import { messageOf } from '../../core/errors.js';
import type { TtyClaim } from '../../core/protocol/link-frames.js';
import { internalsOn, ttyHandle, ttyReader, type OnRead } from '../node-internals.js';

/** A terminal the server writes a client's output to. */
export class DirectTty {
  private pending = 0;
  private idle: (() => void) | undefined;
  private readonly written = (): void => {
    this.pending -= 1;
    if (this.pending === 0) this.idle?.();
  };

  constructor(
    private readonly stream: WriteStream,
    /** The terminal's path, for the log. */
    readonly path: string,
    /** The stream's own (non-blocking) file descriptor, written straight while nothing waits in the stream. */
    private readonly fd?: number,
  ) {}

  /** Bytes written but not yet taken by the terminal. */
  get behind(): number {
    return this.stream.writableLength;
  }

  /**
   * Writes with one write(2) while nothing waits in the stream (an echo: no stream machinery, and order holds since
   * libuv writes only what is queued); what the terminal did not take is queued in the stream.
   */
  write(data: string): void {
    if (this.fd !== undefined && this.pending === 0 && !this.stream.destroyed) {
      // Written from the string (no Buffer made for an echo); only a short write makes one, for the bytes left.
      let n = 0;
      try {
        n = writeSync(this.fd, data);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') {
          this.stream.destroy(err as Error); // EIO: the terminal closed; onError says so
          return;
        }
      }
      if (n === Buffer.byteLength(data, 'utf8')) return; // n counts bytes, not UTF-16 units
      this.pending += 1;
      this.stream.write(Buffer.from(data, 'utf8').subarray(n), this.written);
      return;
    }
    this.pending += 1;
    this.stream.write(data, this.written);
  }

  /** The terminal took everything it was behind by. */
  onDrain(fn: () => void): void {
    this.stream.on('drain', fn);
  }

  /** A write failed (EIO: the terminal closed); the stream is closed already. */
  onError(fn: (why: string) => void): void {
    this.stream.on('error', (err) => fn(messageOf(err)));
  }

  /**
   * Waits until every write so far reached the terminal (at most `waitMs`:
   * a stalled terminal loses the rest), then closes it; after this the
   * server writes nothing more there, so the client may.
   */
  async close(waitMs: number): Promise<void> {
    if (!this.stream.destroyed && this.pending > 0) {
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        this.idle = resolve;
        timer = setTimeout(resolve, waitMs);
      });
      clearTimeout(timer);
    }
    this.destroy();
    if (!this.stream.closed) await new Promise<void>((resolve) => this.stream.once('close', () => resolve()));
  }

  /** Closes the terminal at once, unwritten bytes dropped (the client is gone). */
  destroy(): void {
    this.stream.destroy();
  }
}

/** Opens the terminal a client claims for writing, or says why the client gets output frames instead. */
export function openDirectTty(claim: TtyClaim): DirectTty | string {
  const stream = openStream(claim, 'write');
  if (typeof stream === 'string') return stream;
  stream.on('error', () => {}); // a failed write is reported through onError; never an uncaught error
  return new DirectTty(stream, claim.path, ttyHandle(stream)?.fd);
}

/** The largest read of a client's keys at once (a paste comes in several). */
const KEYS_READ = 4096;

/** A client's terminal taken whole: the server writes its output and reads its keys there. */
export interface TakenTerminal {
  readonly output: DirectTty;
  readonly input: ReadStream;
}

/**
 * Takes the terminal a client claims, both ways or not at all: output written here, each read of keys handed to `onKeys`
 * (a reused buffer, valid only during the call), reading from the input's resume(). A string says why the client keeps
 * its terminal and the link carries frames.
 */
export function takeTerminal(claim: TtyClaim, onKeys: OnRead): TakenTerminal | string {
  const output = openDirectTty(claim);
  if (typeof output === 'string') return output;
  const input = openStream(claim, 'read', onKeys);
  if (typeof input === 'string') {
    output.destroy();
    return input;
  }
  return { output, input };
}

function openStream(claim: TtyClaim, way: 'read', onKeys: OnRead): ReadStream | string;
function openStream(claim: TtyClaim, way: 'write'): WriteStream | string;
function openStream(claim: TtyClaim, way: 'read' | 'write', onKeys?: OnRead): ReadStream | WriteStream | string {
  // Whether libuv reopened the terminal, and making its writes non-blocking, both need the stream's handle.
  if (!internalsOn()) return "Node's internals are switched off (TAI_INTERNALS=0): the client keeps its terminal";
  let fd: number;
  try {
    fd = openSync(claim.path, (way === 'read' ? constants.O_RDONLY : constants.O_WRONLY) | constants.O_NOCTTY | constants.O_NONBLOCK);
  } catch (err) {
    return `cannot open ${claim.path}: ${messageOf(err)}`;
  }
  let stream: ReadStream | WriteStream;
  try {
    const why = refusal(fd, claim);
    if (why !== undefined) {
      closeSync(fd);
      return why;
    }
    stream = onKeys !== undefined ? ttyReader(fd, KEYS_READ, onKeys) : new WriteStream(fd);
  } catch (err) {
    closeSync(fd); // the stream was not made: the fd is still ours alone
    return `cannot ${way} ${claim.path}: ${messageOf(err)}`;
  }
  const handle = ttyHandle(stream);
  // libuv reads and writes through a file description it reopened (its fd, the one it closes) and leaves ours
  // open: ours is closed here. When it could not reopen, its writes block whatever we ask: no direct path then.
  const reopened = handle !== undefined && handle.fd !== fd;
  if (reopened) closeSync(fd);
  if (way === 'write' && (!reopened || handle.setBlocking(false) !== 0)) {
    stream.destroy();
    return `cannot make the writes to ${claim.path} non-blocking`;
  }
  if (!reopened && way === 'read') {
    stream.destroy();
    return `cannot read ${claim.path} on a file description of its own`;
  }
  return stream;
}

/** Why the opened `fd` is not the client's terminal, or undefined when it is. */
function refusal(fd: number, claim: TtyClaim): string | undefined {
  const stat = fstatSync(fd);
  if (!stat.isCharacterDevice() || !isatty(fd)) return `${claim.path} is not a terminal`;
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) return `${claim.path} belongs to uid ${stat.uid}, not this server's ${uid}`;
  if (stat.rdev !== claim.rdev || stat.dev !== claim.dev) return `${claim.path} is another device than the client's`;
  return undefined;
}

/**
 * How a client names its terminal in its hello: the kernel's path for `outFd` and its device numbers when `inFd` is
 * that very terminal; undefined when not, when it cannot be named (no /proc), or with TAI_DIRECT_TTY=0. The native
 * client makes the same claim.
 */
export function ttyClaimOf(outFd: number, inFd: number, env: NodeJS.ProcessEnv = process.env): TtyClaim | undefined {
  if (env['TAI_DIRECT_TTY'] === '0' || !isatty(outFd)) return undefined;
  try {
    const path = readlinkSync(`/proc/self/fd/${outFd}`);
    const stat = fstatSync(outFd);
    const claim = { path, rdev: stat.rdev, dev: stat.dev };
    return stat.isCharacterDevice() && sameTerminal(inFd, claim) ? claim : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `fd` (a client's input) is the very terminal of `claim` (its output). */
function sameTerminal(fd: number, claim: TtyClaim): boolean {
  try {
    const stat = fstatSync(fd);
    return isatty(fd) && stat.rdev === claim.rdev && stat.dev === claim.dev;
  } catch {
    return false;
  }
}
