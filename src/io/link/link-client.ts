/**
 * The thin client: it owns the user's terminal and nothing else (no React, Ink or headless terminal): raw mode, keys
 * and sizes relayed, output written, and the terminal restored however the link ends (a server killed with SIGKILL too).
 * When the server takes its terminal it reads nothing until the attached frame says so, and writes only after the
 * farewell (docs/protocol.md, "The terminal straight"). The native client (src/native/client.c) is the same in C.
 */
import { connect, type Socket } from 'node:net';
import {
  encodeFrame,
  encodeJson,
  FRAME,
  FrameReader,
  LINK_CHUNK,
  LINK_VERSION,
  payloadJson,
  readAttached,
  type Farewell,
  type Frame,
  type Hello,
} from '../../core/protocol/link-frames.js';
import { brokenFarewell, DETACH_SIGNALS, farewellOf, sayFarewell, signalFarewell, silentFarewell } from './link-farewell.js';
import { ttyClaimOf } from './direct-tty.js';
import { fdOf } from '../terminal/ink-stdout.js';
import { LEAVE, writeNow } from '../terminal/terminal-modes.js';

/** The largest frame a client takes from its server (a whole redraw of a big terminal fits many times; client.c's too). */
export const CLIENT_FRAME_MAX = 64 * 1_048_576;

/** How long a client told to stop waits for the server to finish with its terminal (client.c's too). */
export const LEAVE_WAIT_MS = 1_000;

/** Where a client attaches and on what terminal. */
export interface AttachOptions {
  /** The link socket. */
  readonly link: string;
  /** The cockpit's name, for the messages. */
  readonly name: string;
  readonly readOnly?: boolean;
  /** Where the server's log is, named when the server vanishes. */
  readonly logPath?: string;
  readonly stdin?: NodeJS.ReadStream;
  readonly stdout?: NodeJS.WriteStream;
  /** Lines for the user after the terminal is restored. */
  readonly say?: (line: string) => void;
}

/** Opens a connection to a link socket and resolves once it is connected. */
export function connectLink(path: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/**
 * Attaches this terminal to the cockpit at `options.link` until the link
 * ends; resolves with the exit code (the cockpit's main program's, 0 when
 * detached, 1 when the server vanished).
 */
export async function attach(options: AttachOptions): Promise<number> {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const say = options.say ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const socket = await connectLink(options.link);
  socket.setNoDelay(true);
  const { hello, offer } = helloOf(options, stdin, stdout);
  if (stdin.isTTY) stdin.setRawMode(true);
  const keys = new KeysRelay(stdin, socket);
  if (!offer) keys.read();
  const onResize = (): void => void socket.write(encodeJson(FRAME.resize, { cols: stdout.columns || 80, rows: stdout.rows || 24 }));
  stdout.on('resize', onResize);
  const onDrain = (): void => void socket.resume();
  stdout.on('drain', onDrain);

  return new Promise<number>((resolve) => {
    let finished = false;
    let leaving: Farewell | undefined;
    let leaveTimer: NodeJS.Timeout | undefined;
    const finish = (told: Farewell): void => {
      if (finished) return;
      finished = true;
      clearTimeout(leaveTimer);
      const words = leaving ?? told;
      keys.stop();
      stdout.off('resize', onResize);
      stdout.off('drain', onDrain);
      for (const s of DETACH_SIGNALS) process.off(s, onSignal);
      writeNow(fdOf(stdout), LEAVE);
      if (stdin.isTTY) stdin.setRawMode(false);
      stdin.pause();
      socket.destroy();
      resolve(sayFarewell(words, say));
    };
    // The terminal went away (SIGHUP) or the client is told to stop: it detaches; the cockpit goes on. It first
    // lets the server finish with the terminal (its d): a SIGHUP may be tai's death, with the terminal still
    // there, and the server still writing and reading it. A second signal does not wait.
    const onSignal = (signal: NodeJS.Signals): void => {
      if (leaving !== undefined || socket.destroyed) return finish(leaving ?? signalFarewell(options.name, signal));
      leaving = signalFarewell(options.name, signal);
      socket.write(encodeFrame(FRAME.leave));
      leaveTimer = setTimeout(() => finish(signalFarewell(options.name, signal)), LEAVE_WAIT_MS);
    };
    for (const s of DETACH_SIGNALS) process.on(s, onSignal);
    // Only now: once the server has the hello the client may be told to stop (tai kill, a closed terminal), and a
    // signal with no listener yet would end this process with the terminal left raw.
    socket.write(encodeJson(FRAME.hello, hello));

    const reader = new FrameReader(CLIENT_FRAME_MAX);
    socket.on('data', (chunk: Buffer) => {
      const { frames, error } = reader.push(chunk);
      for (const frame of frames) {
        const end = onFrame(frame, keys, stdout, socket);
        if (end === undefined) continue;
        if (end.exited) leaving = undefined; // the cockpit ended meanwhile: its code and lines are the news
        return finish(end.farewell);
      }
      if (error !== undefined) finish(brokenFarewell(options.name, error));
    });
    socket.on('error', () => {}); // 'close' follows
    socket.on('close', () => finish(silentFarewell(options.name, options.logPath)));
  });
}

/** The hello of this terminal: its size, and the terminal offered to the server when its keys and output are that one terminal. */
function helloOf(options: AttachOptions, stdin: NodeJS.ReadStream, stdout: NodeJS.WriteStream): { hello: Hello; offer: boolean } {
  const outFd = (stdout as { fd?: unknown }).fd;
  const inFd = (stdin as { fd?: unknown }).fd;
  const tty = stdout.isTTY && typeof outFd === 'number' && typeof inFd === 'number' ? ttyClaimOf(outFd, inFd) : undefined;
  const hello: Hello = {
    version: LINK_VERSION,
    mode: 'attach',
    cols: stdout.columns || 80,
    rows: stdout.rows || 24,
    ...(options.readOnly === true ? { readOnly: true } : {}),
    // Both: a server takes the terminal only when its keys are offered with it.
    ...(tty === undefined ? {} : { tty, ttyInput: true }),
  };
  return { hello, offer: tty !== undefined };
}

/** The terminal's keys to the server, read only once it is clear the server does not read that terminal itself. */
class KeysRelay {
  /** The attached frame came: the server said who reads the terminal. */
  answered = false;
  #reading = false;
  readonly #onInput: (data: Buffer) => void;

  constructor(
    private readonly stdin: NodeJS.ReadStream,
    socket: Socket,
  ) {
    this.#onInput = (data) => {
      for (let at = 0; at < data.length; at += LINK_CHUNK) socket.write(encodeFrame(FRAME.input, data.subarray(at, at + LINK_CHUNK)));
    };
  }

  read(): void {
    if (this.#reading) return;
    this.#reading = true;
    this.stdin.on('data', this.#onInput);
    this.stdin.resume();
  }

  stop(): void {
    this.stdin.off('data', this.#onInput);
  }
}

/** What one frame does: output written, the terminal's reading begun, or the link's end. */
function onFrame(frame: Frame, keys: KeysRelay, stdout: NodeJS.WriteStream, socket: Socket): { farewell: Farewell; exited: boolean } | undefined {
  switch (frame.type) {
    case FRAME.output:
      if (!keys.answered) keys.read(); // output before the attached frame: a server that never reads a terminal
      if (!stdout.write(frame.payload)) socket.pause(); // a slow terminal slows the link, not the client's memory
      return undefined;
    case FRAME.attached:
      keys.answered = true;
      if (readAttached(payloadJson(frame)).input === 'frames') keys.read();
      return undefined;
    case FRAME.exit:
    case FRAME.detached:
      return { farewell: farewellOf(payloadJson(frame)), exited: frame.type === FRAME.exit };
    default:
      return undefined; // a newer server's frame this client does not know
  }
}
