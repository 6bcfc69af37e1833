/**
 * Every reach of tai into Node's own internals, each with a public-API fallback, and the one switch that turns off
 * every reach into another library's or Node's internals: `TAI_INTERNALS=0` (xterm-internals.ts and
 * node-pty-internals.ts read it here). CI runs the end-to-end tests again with it set (docs/performance.md, "Internals").
 */
import { createRequire } from 'node:module';
import { ReadStream } from 'node:tty';
import v8 from 'node:v8';

/** Whether tai may read other libraries' and Node's internals (false with TAI_INTERNALS=0). */
export function internalsOn(env: NodeJS.ProcessEnv = process.env): boolean {
  return env['TAI_INTERNALS'] !== '0';
}

/**
 * Sets one of V8's own flags at run time (V8's flags are not Node's contract: a Node release may rename or drop
 * one); false, and nothing set, when switched off. The idle collector's young-generation growth and compaction use it.
 */
export function setV8Flag(flag: string): boolean {
  if (!internalsOn()) return false;
  v8.setFlagsFromString(flag);
  return true;
}

/** What Node's TTY handle offers that its streams do not. */
export interface TtyHandle {
  /** The file descriptor libuv reads and writes through. */
  readonly fd: number;
  /** Makes its reads and writes blocking or not; 0 on success. */
  setBlocking(blocking: boolean): number;
}

/** The handle behind a tty stream (`_handle`), or undefined when switched off or not of this shape. */
export function ttyHandle(stream: object): TtyHandle | undefined {
  if (!internalsOn()) return undefined;
  const handle = (stream as { _handle?: { fd?: unknown; setBlocking?: unknown } })._handle;
  if (typeof handle?.fd !== 'number' || typeof handle.setBlocking !== 'function') return undefined;
  const { fd } = handle;
  const setBlocking = handle.setBlocking as (blocking: boolean) => number;
  return { fd, setBlocking: (blocking) => setBlocking.call(handle, blocking) };
}

/** tty.ReadStream passes its options on to net.Socket, whose `onread` @types/node leaves out of tty's. */
type ReaderOptions = ConstructorParameters<typeof ReadStream>[1] & { onread: { buffer: Buffer; callback: (n: number, buf: Buffer) => boolean | void } };

/** A read's bytes: the first `length` of `bytes`, valid only during the call. */
export type OnRead = (bytes: Buffer, length: number) => void;

/**
 * A terminal's reads on `fd`, each handed to `onRead` from one reused buffer with its length: net.Socket's `onread`,
 * which tty.ReadStream passes on undocumented; no stream or view between a key and its reader (docs/performance.md,
 * "Echo ahead"). Off: the stream's 'data'. 'error', 'end' and 'close' still come; reading starts with resume().
 */
export function ttyReader(fd: number, size: number, onRead: OnRead): ReadStream {
  if (!internalsOn()) {
    const stream = new ReadStream(fd);
    stream.pause();
    stream.on('data', (bytes: Buffer) => onRead(bytes, bytes.length));
    return stream;
  }
  const buffer = Buffer.allocUnsafe(size);
  const options: ReaderOptions = { onread: { buffer, callback: (n, buf) => void onRead(buf, n) } };
  return new ReadStream(fd, options);
}

/** A socket's reads taken from libuv into one reused buffer, and its file descriptor. */
export interface SocketReads {
  readonly fd: number;
  /** From now on every read lands in `buffer` and goes to `onRead` with its length; no 'data' is emitted. */
  start(buffer: Buffer, onRead: (n: number, buf: Buffer) => void): void;
}

/**
 * net.Socket's `onread` set on a socket already made (its handle's `useUserBuffer` and the `kBuffer`/`kBufferCb` slots,
 * found by their symbols' descriptions); undefined when switched off, of another shape, or already reading so.
 */
export function socketReads(socket: object): SocketReads | undefined {
  if (!internalsOn()) return undefined;
  const held = socket as Record<symbol, unknown> & { _handle?: { fd?: unknown; useUserBuffer?: unknown } };
  const handle = held._handle;
  const symbol = (name: string): symbol | undefined => Object.getOwnPropertySymbols(socket).find((s) => s.description === name);
  const kBuffer = symbol('kBuffer');
  const kBufferCb = symbol('kBufferCb');
  const fd = handle?.fd;
  const useUserBuffer = handle?.useUserBuffer;
  if (typeof useUserBuffer !== 'function' || typeof fd !== 'number' || kBuffer === undefined || kBufferCb === undefined || held[kBuffer] !== null) return undefined;
  return {
    fd,
    start(buffer, onRead) {
      held[kBufferCb] = onRead;
      held[kBuffer] = buffer;
      (useUserBuffer as (buf: Buffer) => void).call(handle, buffer);
    },
  };
}

/**
 * `load` run with the global `fetch` undefined, Node's own property put back once it settled: yoga-layout's loader then
 * decodes its WebAssembly itself instead of loading undici and its modules. Off, or when fetch cannot be replaced: as is.
 */
export async function withoutFetch<T>(load: () => Promise<T>): Promise<T> {
  const own = Object.getOwnPropertyDescriptor(globalThis, 'fetch');
  // Reading the descriptor runs nothing (on Node 20 fetch is a plain function that loads undici when called).
  if (!internalsOn() || own === undefined || own.configurable !== true) return load();
  Object.defineProperty(globalThis, 'fetch', { value: undefined, configurable: true, writable: true, enumerable: own.enumerable ?? false });
  try {
    return await load();
  } finally {
    Object.defineProperty(globalThis, 'fetch', own);
  }
}

/**
 * Removes from `require.cache` the CommonJS modules that never ran (read
 * only to learn their names for an ES import): a later `require` of one
 * reads it again. Nothing when switched off.
 */
export function dropUnloadedCommonJs(): void {
  if (!internalsOn()) return;
  const cache = createRequire(import.meta.url).cache;
  for (const [file, module] of Object.entries(cache)) if (module !== undefined && !module.loaded) delete cache[file];
}
