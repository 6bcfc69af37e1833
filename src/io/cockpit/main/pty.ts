/**
 * The main pane's pty (node-pty): runs `$SHELL` or the given command with
 * tai's variables in its environment (docs/spec.md, "Layout": every pane has
 * TAI_PLEXER_ACTIVE, TAI_PLEXER_SOCKET and TAI_PLEXER_PANE).
 */
import { readSync, writeSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import pty, { type IPty } from 'node-pty';

/** How to start the main program. */
export interface MainPtyOptions {
  /** The command and its arguments; empty runs `$SHELL` (or /bin/sh). */
  readonly argv: readonly string[];
  readonly cols: number;
  readonly rows: number;
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /** The control socket's path, for TAI_PLEXER_SOCKET. */
  readonly socketPath?: string;
}

/** How the main program ended: its exit code, or 128 + the signal that killed it. */
export interface MainExit {
  readonly code: number;
  readonly signal?: number;
}

/** The running main program. */
export interface MainPty {
  readonly pid: number;
  write(data: string): void;
  resize(cols: number, rows: number): void;
  /** Sends a signal (default SIGHUP, as a closing terminal would). */
  kill(signal?: string): void;
  onData(listener: (data: string) => void): void;
  readonly exited: Promise<MainExit>;
}

/** The environment of the main program. */
export function mainEnv(base: NodeJS.ProcessEnv, socketPath?: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) if (v !== undefined) env[k] = v;
  env.TAI_PLEXER_ACTIVE = '1';
  env.TAI_PLEXER_PANE = '0';
  if (socketPath !== undefined) env.TAI_PLEXER_SOCKET = socketPath;
  env.TERM = 'xterm-256color';
  env.COLORTERM = env.COLORTERM ?? 'truecolor';
  return env;
}

/** Starts the main program in a pty. */
export function spawnMain(options: MainPtyOptions): MainPty {
  const base = options.env ?? process.env;
  const [file, ...args] = options.argv.length > 0 ? options.argv : [base.SHELL || '/bin/sh'];
  const p = pty.spawn(file, args, {
    name: 'xterm-256color',
    cols: Math.max(1, options.cols),
    rows: Math.max(1, options.rows),
    cwd: options.cwd ?? process.cwd(),
    env: mainEnv(base, options.socketPath),
  });
  const exited = new Promise<MainExit>((resolve) => {
    p.onExit(({ exitCode, signal }) => {
      resolve(signal ? { code: 128 + signal, signal } : { code: exitCode });
    });
  });
  let size = `${options.cols}x${options.rows}`;
  let read: ((listener: (data: string) => void) => void) | undefined;
  return {
    pid: p.pid,
    write: directWrite(p),
    resize(cols, rows) {
      const next = `${cols}x${rows}`;
      if (next === size) return;
      size = next;
      try {
        p.resize(Math.max(1, cols), Math.max(1, rows));
      } catch {
        // The program already exited; its exit is reported through `exited`.
      }
    },
    kill(signal = 'SIGHUP') {
      try {
        p.kill(signal);
      } catch {
        // Already gone.
      }
    },
    onData: (listener) => {
      if (read === undefined) read = directRead(p);
      read(listener);
    },
    exited,
  };
}

/**
 * Writes to the pty in the caller's turn. node-pty queues every write and
 * makes it on libuv's thread pool (fs.write), so a typed key waited for a
 * worker thread to be woken and scheduled before `cat` could read it: on a
 * busy machine the larger part of the way to the pty (issue 17, keypress to
 * echo). The master fd is non-blocking (node-pty sets it), so a full pty
 * input buffer is EAGAIN, never a blocked server: then, and whenever
 * node-pty still holds earlier writes (order is kept), the rest goes
 * through node-pty's queue as before. Without the fd or the queue
 * (node-pty's internals changed), every write goes through node-pty.
 */
export function directWrite(p: IPty): (data: string) => void {
  const inner = p as unknown as { fd?: unknown; _writable?: unknown; _writeStream?: { _writeQueue?: unknown } };
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

/** The pty read at once: the buffer the reads land in (node-pty's own reads are 64 KiB too). */
const PTY_READ = 65_536;

/** What a net.Socket keeps for its `onread` option (internal: found by their names, checked before use). */
type ReadSocket = NodeJS.EventEmitter & { _handle?: { fd?: unknown; useUserBuffer?: (buf: Buffer) => void } } & Record<symbol, unknown>;

/**
 * Reads the pty's output straight from libuv (issue 17, keypress to echo).
 * node-pty reads its master through a tty.ReadStream set to UTF-8, and each
 * read then went through the Readable stream's push, its decoder, the
 * 'data' event and node-pty's own emitter before the main pane saw it. Here
 * the stream gets what net.Socket's `onread` option would have given it at
 * construction (one reused buffer and a callback: Node's onStreamRead calls
 * it instead of pushing), the UTF-8 is decoded across reads by our own
 * decoder, and the listeners get the text. The stream still reports errors
 * and its close, so node-pty still sees the program's end and waits for it
 * before its exit.
 *
 * One catch, measured: libuv takes a hang-up after a short read for the
 * end of the data, which holds for a socket but not for a pty, whose last
 * bytes (up to 64 KiB behind the line discipline's 4 KiB) are still to be
 * read when the program has exited. The Readable stream never met it, as it
 * stopped reading after every chunk; here, at that end, the rest is read
 * at once (the fd is non-blocking: EIO or EAGAIN ends it) before the
 * stream closes. Without the internals (node-pty's socket or Node's net
 * changed), node-pty's onData as before. Returns how to add a listener.
 */
export function directRead(p: IPty): (listener: (data: string) => void) => void {
  const socket = (p as unknown as { _socket?: ReadSocket })._socket;
  const handle = socket?._handle;
  const symbol = (name: string): symbol | undefined => (socket ? Object.getOwnPropertySymbols(socket).find((s) => s.description === name) : undefined);
  const kBuffer = symbol('kBuffer');
  const kBufferCb = symbol('kBufferCb');
  const fd = handle?.fd;
  if (!socket || typeof handle?.useUserBuffer !== 'function' || typeof fd !== 'number' || kBuffer === undefined || kBufferCb === undefined || socket[kBuffer] !== null) {
    return (listener) => void p.onData(listener);
  }
  const listeners: ((data: string) => void)[] = [];
  const decoder = new StringDecoder('utf8');
  const buffer = Buffer.allocUnsafe(PTY_READ);
  const tell = (text: string): void => {
    if (text !== '') for (const l of listeners) l(text);
  };
  const got = (n: number, buf: Buffer): void => tell(decoder.write(buf.subarray(0, n)));
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
  socket[kBufferCb] = got;
  socket[kBuffer] = buffer;
  handle.useUserBuffer(buffer);
  return (listener) => void listeners.push(listener);
}
