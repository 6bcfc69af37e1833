/**
 * Every reach of tai into node-pty's internals (its version pinned in package.json), each with node-pty's own API as
 * fallback; the net.Socket it reads through is Node's (src/io/node-internals.ts), and TAI_INTERNALS=0 takes both. The canary
 * test (test/io/cockpit/main/node-pty-internals.test.ts) names the version when a shape is gone.
 */
import { readSync, writeSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import type { IPty } from 'node-pty';
import { internalsOn, socketReads, type SocketReads } from '../../node-internals.js';

/** The parts of node-pty's UnixTerminal written through: its master fd, whether it is open, its write queue. */
interface WriteInternals {
  readonly fd?: unknown;
  readonly _writable?: unknown;
  readonly _writeStream?: { readonly _writeQueue?: unknown };
}

/**
 * Writes to the pty in the caller's turn: node-pty's writes go through the thread pool, so a key waited for a worker.
 * The master fd is non-blocking, so a full buffer is EAGAIN, never a blocked server: then, and while node-pty holds
 * earlier writes (order is kept), the rest goes through its queue. Without the fd or the queue: node-pty's write.
 */
export function ptyWriter(p: IPty): (data: string) => void {
  const inner = p as unknown as WriteInternals;
  if (!internalsOn()) return (data) => p.write(data);
  const fd = inner.fd;
  const queue = inner._writeStream?._writeQueue;
  if (typeof fd !== 'number' || !Array.isArray(queue)) return (data) => p.write(data);
  return (data) => {
    // Once node-pty has closed the pty (the program exited) its fd is closed and its number may belong to
    // another file by now (a git child's pipe, a client's socket): node-pty's write is then a no-op, ours must be too.
    if (queue.length > 0 || inner._writable !== true) return p.write(data);
    // Written from the string (no Buffer made for a key); only a short write makes one, for the bytes left.
    let written = 0;
    try {
      written = writeSync(fd, data);
    } catch {
      // EAGAIN (the program does not read) or a program that is gone: node-pty retries or reports, as it did.
    }
    if (written < Buffer.byteLength(data, 'utf8')) p.write(Buffer.from(data, 'utf8').subarray(written));
  };
}

/**
 * How to count the bytes node-pty holds that the program has not taken yet;
 * undefined when its queue cannot be seen (no public API tells it). The
 * queue is found once here, not at each key: the count runs on every key.
 */
export function ptyQueuedBytes(p: IPty): (() => number) | undefined {
  const queue = internalsOn() ? (p as unknown as WriteInternals)._writeStream?._writeQueue : undefined;
  if (!Array.isArray(queue)) return undefined;
  const tasks = queue as { buffer?: { byteLength?: unknown }; offset?: unknown }[];
  return () => {
    let n = 0;
    for (const task of tasks) {
      const length = task.buffer?.byteLength;
      if (typeof length === 'number') n += length - (typeof task.offset === 'number' ? task.offset : 0);
    }
    return n;
  };
}

/** The pty read at once: the buffer the reads land in (node-pty's own reads are 64 KiB too). */
const PTY_READ = 65_536;

/** node-pty's socket, and its reads from libuv (Node's part: node-internals.ts), when both are there. */
function readParts(p: IPty): { socket: NodeJS.EventEmitter; reads: SocketReads } | undefined {
  if (!internalsOn()) return undefined;
  const socket = (p as unknown as { _socket?: NodeJS.EventEmitter })._socket;
  const reads = socket === undefined ? undefined : socketReads(socket);
  return reads === undefined || socket === undefined ? undefined : { socket, reads };
}

/**
 * Reads the pty's output straight from libuv (net.Socket's `onread`: one reused buffer, no stream, no emitter), UTF-8
 * decoded across reads; errors and close still reach node-pty. libuv takes a hang-up after a short read for the end, not
 * so for a pty, so then the rest is read at once (EIO or EAGAIN ends it). Without the internals: node-pty's onData.
 */
export function ptyReader(p: IPty): (listener: (data: string) => void) => void {
  const parts = readParts(p);
  if (parts === undefined) return (listener) => void p.onData(listener);
  const { socket, reads } = parts;
  const { fd } = reads;
  const listeners: ((data: string) => void)[] = [];
  const decoder = new StringDecoder('utf8');
  const buffer = Buffer.allocUnsafe(PTY_READ);
  const tell = (text: string): void => {
    if (text !== '') for (const l of listeners) l(text);
  };
  // Whether the decoder holds no part of a character: so once the bytes it was last given ended in ASCII.
  let clean = true;
  const got = (n: number, buf: Buffer): void => {
    const ascii = buf[n - 1]! < 0x80;
    // An echo, a line: nothing of a character waits and none is cut at the end, so the bytes decode alone.
    // One byte (an echo): its character as it is, without a call into Buffer's decoder.
    if (clean && ascii) return tell(n === 1 ? String.fromCharCode(buf[0]!) : buf.toString('utf8', 0, n));
    clean = ascii;
    tell(decoder.write(buf.subarray(0, n)));
  };
  // Before net.Socket's own 'end' listener, which destroys the stream and closes the fd.
  socket.prependListener('end', () => {
    for (;;) {
      let n = 0;
      try {
        n = readSync(fd, buffer, 0, buffer.length, null);
      } catch {
        break; // EIO: all read (the program's side is closed); EAGAIN: nothing more now
      }
      if (n <= 0) break;
      got(n, buffer);
    }
    tell(decoder.end());
  });
  reads.start(buffer, got);
  return (listener) => void listeners.push(listener);
}

/** The internals above that the running pty `p` lacks (the canary test's list): empty when every reach works. */
export function missingInternals(p: IPty): string[] {
  const missing: string[] = [];
  const inner = p as unknown as WriteInternals;
  if (typeof inner.fd !== 'number') missing.push('UnixTerminal.fd');
  if (typeof inner._writable !== 'boolean') missing.push('UnixTerminal._writable');
  if (!Array.isArray(inner._writeStream?._writeQueue)) missing.push('UnixTerminal._writeStream._writeQueue');
  if (readParts(p) === undefined) missing.push("UnixTerminal._socket (and Node's net.Socket onread slots: node-internals.ts socketReads)");
  return missing;
}
