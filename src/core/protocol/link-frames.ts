/**
 * The client link's framing (docs/protocol.md, "Frames"): a one-byte type, a four-byte big-endian length, the
 * payload: raw bytes for a terminal's input and output, relayed untouched so nothing needs escaping, JSON for the
 * rest. A frame over the reader's cap is refused before it is buffered.
 */

/** The link's version; a client of another version is refused with a message. */
export const LINK_VERSION = 1;

/** The longest frame a server accepts from a client: input is relayed in chunks of at most LINK_CHUNK. */
export const LINK_FRAME_MAX = 1_048_576;

/** The longest frame a server reads before the hello: a hello is a short JSON object. */
export const LINK_HELLO_MAX = 4_096;

/** The largest chunk of input or output one frame carries. */
export const LINK_CHUNK = 65_536;

/** What each frame type byte means; client to server, then server to client. */
export const FRAME = {
  /** client: JSON Hello, the first frame of every connection. */
  hello: 0x68, // h
  /** client: bytes typed on the terminal. */
  input: 0x69, // i
  /** client: JSON {cols, rows}, the terminal's new size. */
  resize: 0x72, // r
  /** client: detach me (a signal told the client to stop); answered with d once the server's writes to the terminal are done. */
  leave: 0x71, // q
  /** server: bytes for the terminal. */
  output: 0x6f, // o
  /** server: JSON Farewell, the last frame: the client restores its terminal and exits with the code. */
  exit: 0x78, // x
  /** server: JSON Farewell: this client is detached, the cockpit goes on. */
  detached: 0x64, // d
  /** server: JSON CockpitInfo, the answer to a query hello. */
  info: 0x6e, // n
  /** server: JSON Attached, right after an attach hello: who writes the client's terminal and who reads it. */
  attached: 0x61, // a
} as const;

/** A frame type byte. */
export type FrameType = (typeof FRAME)[keyof typeof FRAME];

/** The first frame of a connection: what the client wants. */
export interface Hello {
  readonly version: number;
  /** attach: show the cockpit; query: answer with CockpitInfo and close; kill: end it. */
  readonly mode: 'attach' | 'query' | 'kill';
  readonly cols?: number;
  readonly rows?: number;
  /** Input other than the prefix's detach is ignored. */
  readonly readOnly?: boolean;
  /** The terminal the client writes to, for the server to write to it straight (sent only when it is one). */
  readonly tty?: TtyClaim;
  /** With tty: the server may read the terminal too; the client reads nothing until the attached frame says it should. */
  readonly ttyInput?: boolean;
}

/** The server's answer to an attach: whether it writes the client's terminal itself, and whether it reads it. */
export interface Attached {
  readonly output: 'tty' | 'frames';
  readonly input: 'tty' | 'frames';
}

/** The attached frame's JSON as read; anything not saying 'tty' is 'frames' (the client does the work). */
export function readAttached(value: unknown): Attached {
  const v = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  return { output: v.output === 'tty' ? 'tty' : 'frames', input: v.input === 'tty' ? 'tty' : 'frames' };
}

/**
 * A client's terminal: its path (`ttyname`) and the device numbers `fstat` gives for the client's own fd, so
 * the server can check the path it opens is that very terminal.
 */
export interface TtyClaim {
  readonly path: string;
  readonly rdev: number;
  readonly dev: number;
}

/** The paths a terminal claim may name: a device under /dev, nothing that climbs out. */
const TTY_PATH = /^\/dev\/[A-Za-z0-9._/-]{1,200}$/;

/** The last frame a client gets: why the link ends, with lines to print after the terminal is restored. */
export interface Farewell {
  /** The exit code of the client. */
  readonly code: number;
  readonly message?: string;
  readonly lines?: readonly string[];
}

/** What `tai ls` shows of a running cockpit. */
export interface CockpitInfo {
  readonly name: string;
  readonly pid: number;
  readonly argv: readonly string[];
  readonly cwd: string;
  /** Epoch milliseconds. */
  readonly startedAt: number;
  readonly clients: number;
  readonly running: number;
  readonly asking: number;
  readonly done: number;
}

/** One whole frame. */
export interface Frame {
  readonly type: number;
  readonly payload: Uint8Array;
}

const HEADER = 5;
const utf8 = new TextEncoder();
const text = new TextDecoder();

/** The bytes of one frame. */
export function encodeFrame(type: FrameType, payload: Uint8Array | string = new Uint8Array(0)): Uint8Array {
  const body = typeof payload === 'string' ? utf8.encode(payload) : payload;
  const out = new Uint8Array(HEADER + body.length);
  out[0] = type;
  new DataView(out.buffer).setUint32(1, body.length);
  out.set(body, HEADER);
  return out;
}

/** The bytes of one frame with a JSON payload. */
export function encodeJson(type: FrameType, value: unknown): Uint8Array {
  return encodeFrame(type, JSON.stringify(value));
}

/** A frame's payload read as JSON; undefined when it is not JSON. */
export function payloadJson(frame: Frame): unknown {
  try {
    return JSON.parse(text.decode(frame.payload)) as unknown;
  } catch {
    return undefined;
  }
}

/** A frame's payload as text. */
export function payloadText(frame: Frame): string {
  return text.decode(frame.payload);
}

/** Splits a byte stream into frames; a frame announced over `max` is an error, and the reader stops. */
export class FrameReader {
  private pending: Uint8Array = new Uint8Array(0);
  private failed: string | undefined;

  /** `firstMax`: the first frame's own cap (a server reads a hello of at most LINK_HELLO_MAX before anything longer). */
  constructor(
    private readonly max: number = LINK_FRAME_MAX,
    private firstMax: number = max,
  ) {}

  /** The frames completed by `chunk`, or the reason the stream cannot be read on. */
  push(chunk: Uint8Array): { readonly frames: Frame[]; readonly error?: string } {
    if (this.failed !== undefined) return { frames: [], error: this.failed };
    const data = this.pending.length === 0 ? chunk : concat(this.pending, chunk);
    const frames: Frame[] = [];
    let at = 0;
    while (data.length - at >= HEADER) {
      const length = new DataView(data.buffer, data.byteOffset + at + 1, 4).getUint32(0);
      const max = this.firstMax;
      if (length > max) {
        this.failed = `link frame too long (${length} bytes, limit ${max})`;
        this.pending = new Uint8Array(0);
        return { frames, error: this.failed };
      }
      if (data.length - at - HEADER < length) break;
      frames.push({ type: data[at] ?? 0, payload: data.slice(at + HEADER, at + HEADER + length) });
      at += HEADER + length;
      this.firstMax = this.max;
    }
    this.pending = at === data.length ? new Uint8Array(0) : data.slice(at);
    return { frames };
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/** A valid Hello, or why not (the server answers a bad one with this message). */
export function readHello(value: unknown): Hello | string {
  if (typeof value !== 'object' || value === null) return 'the first frame must be a hello object';
  const v = value as Record<string, unknown>;
  if (v.version !== LINK_VERSION) return `this cockpit speaks link version ${LINK_VERSION}, the client ${String(v.version)}: use the same tai for both`;
  if (v.mode !== 'attach' && v.mode !== 'query' && v.mode !== 'kill') return `unknown hello mode ${JSON.stringify(v.mode)}`;
  if (v.mode === 'attach' && (!isSize(v.cols) || !isSize(v.rows))) return 'an attach hello needs cols and rows (integers 1..10000)';
  return {
    version: LINK_VERSION,
    mode: v.mode,
    ...(isSize(v.cols) ? { cols: v.cols } : {}),
    ...(isSize(v.rows) ? { rows: v.rows } : {}),
    ...(v.readOnly === true ? { readOnly: true } : {}),
    ...(readTty(v.tty) ?? {}),
    ...(v.ttyInput === true && readTty(v.tty) !== undefined ? { ttyInput: true } : {}),
  };
}

/** A well-formed terminal claim as a Hello field; a malformed one is left out (the client gets output frames). */
function readTty(value: unknown): { tty: TtyClaim } | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v.path !== 'string' || !TTY_PATH.test(v.path) || v.path.includes('..')) return undefined;
  if (!isDeviceNumber(v.rdev) || !isDeviceNumber(v.dev)) return undefined;
  return { tty: { path: v.path, rdev: v.rdev, dev: v.dev } };
}

function isDeviceNumber(n: unknown): n is number {
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
}

/** A valid {cols, rows}, or undefined (the layout bounds it further: src/core/screen-bound.ts). */
export function readSize(value: unknown): { cols: number; rows: number } | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  return isSize(v.cols) && isSize(v.rows) ? { cols: v.cols, rows: v.rows } : undefined;
}

function isSize(n: unknown): n is number {
  return typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= 10_000;
}
