/**
 * The main pane's pty (node-pty): runs `$SHELL` or the given command with
 * tai's variables in its environment (docs/spec.md, "Layout": every pane has
 * TAI_PLEXER_ACTIVE, TAI_PLEXER_SOCKET and TAI_PLEXER_PANE).
 */
import pty from 'node-pty';
import { boundKeys } from '../../link/key-backlog.js';
import { ptyQueuedBytes, ptyReader, ptyWriter } from './node-pty-internals.js';

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
  /** Told when keys are dropped because the program does not read them (src/io/link/key-backlog.ts). */
  readonly onKeysDropped?: (line: string) => void;
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
  // Where node-pty's queue cannot be seen: the keys written since the program last printed (an echo is output too).
  let sinceOutput = 0;
  const writer = ptyWriter(p);
  const queued = ptyQueuedBytes(p);
  // The count is kept only where it is the bound's: with node-pty's queue seen, a key goes straight to the writer.
  const counted = (data: string): void => {
    sinceOutput += Buffer.byteLength(data, 'utf8');
    writer(data);
  };
  return {
    pid: p.pid,
    write: boundKeys(queued === undefined ? counted : writer, queued ?? (() => sinceOutput), options.onKeysDropped ?? (() => {})),
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
      if (read === undefined) read = ptyReader(p);
      // The count is the bound's only where node-pty's queue is not seen: else the output goes straight on.
      read(
        queued !== undefined
          ? listener
          : (data) => {
              sinceOutput = 0;
              listener(data);
            },
      );
    },
    exited,
  };
}
