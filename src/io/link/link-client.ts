/**
 * The thin client: it owns the user's terminal and nothing else. Raw mode
 * on, every byte typed and every new size relayed to the cockpit's server,
 * every byte of output written to the terminal, and the terminal restored
 * when the link ends, however it ends: a farewell (the cockpit exited, or
 * this client was detached), or the server gone without a word (killed with
 * SIGKILL: the alternate screen is left all the same). It loads no React,
 * no Ink and no headless terminal: a client is a relay, small and quick.
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
  type Farewell,
  type Hello,
} from '../../core/protocol/link-frames.js';
import { brokenFarewell, DETACH_SIGNALS, farewellOf, sayFarewell, signalFarewell, silentFarewell } from './link-farewell.js';
import { fdOf } from '../terminal/ink-stdout.js';
import { LEAVE, writeNow } from '../terminal/terminal-modes.js';

/** The largest frame a client takes from its server (a whole redraw of a big terminal fits many times; client.c's too). */
export const CLIENT_FRAME_MAX = 64 * 1_048_576;

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
  const hello: Hello = {
    version: LINK_VERSION,
    mode: 'attach',
    cols: stdout.columns || 80,
    rows: stdout.rows || 24,
    ...(options.readOnly === true ? { readOnly: true } : {}),
  };
  if (stdin.isTTY) stdin.setRawMode(true);
  const onInput = (data: Buffer): void => {
    for (let at = 0; at < data.length; at += LINK_CHUNK) socket.write(encodeFrame(FRAME.input, data.subarray(at, at + LINK_CHUNK)));
  };
  stdin.on('data', onInput);
  stdin.resume();
  const onResize = (): void => void socket.write(encodeJson(FRAME.resize, { cols: stdout.columns || 80, rows: stdout.rows || 24 }));
  stdout.on('resize', onResize);
  const onDrain = (): void => void socket.resume();
  stdout.on('drain', onDrain);

  return new Promise<number>((resolve) => {
    let finished = false;
    const finish = (words: Farewell): void => {
      if (finished) return;
      finished = true;
      stdin.off('data', onInput);
      stdout.off('resize', onResize);
      stdout.off('drain', onDrain);
      for (const s of DETACH_SIGNALS) process.off(s, onSignal);
      writeNow(fdOf(stdout), LEAVE);
      if (stdin.isTTY) stdin.setRawMode(false);
      stdin.pause();
      socket.destroy();
      resolve(sayFarewell(words, say));
    };
    // The terminal went away (SIGHUP) or the client is told to stop: it detaches; the cockpit goes on.
    const onSignal = (signal: NodeJS.Signals): void => finish(signalFarewell(options.name, signal));
    for (const s of DETACH_SIGNALS) process.on(s, onSignal);
    // Only now: once the server has the hello the client may be told to stop (tai kill, a closed terminal), and a
    // signal with no listener yet would end this process with the terminal left raw.
    socket.write(encodeJson(FRAME.hello, hello));

    const reader = new FrameReader(CLIENT_FRAME_MAX);
    socket.on('data', (chunk: Buffer) => {
      const { frames, error } = reader.push(chunk);
      for (const frame of frames) {
        switch (frame.type) {
          case FRAME.output:
            if (!stdout.write(frame.payload)) socket.pause(); // a slow terminal slows the link, not the client's memory
            break;
          case FRAME.exit:
          case FRAME.detached:
            finish(farewellOf(payloadJson(frame)));
            return;
          default:
            break; // a newer server's frame this client does not know
        }
      }
      if (error !== undefined) finish(brokenFarewell(options.name, error));
    });
    socket.on('error', () => {}); // 'close' follows
    socket.on('close', () => finish(silentFarewell(options.name, options.logPath)));
  });
}
