/**
 * The terminal a drawn cockpit draws on and reads keys from: this process's own (`processTerminal`, for embedders and
 * tests) or the clients attached over the link (src/io/link/link-hub.ts). The cockpit never touches a stream itself:
 * it writes frames, hears keys, sizes and attaches, and leaves through here.
 */
import { layoutSize } from '../../core/screen-bound.js';
import { fdOf } from '../terminal/ink-stdout.js';
import { writeNow } from '../terminal/terminal-modes.js';

/** Where a drawn cockpit's frames go and its keys come from. */
export interface CockpitTerminal {
  /** The size the cockpit lays out for. */
  readonly cols: number;
  readonly rows: number;
  /** Bytes for the terminal (every attached client). */
  write(data: string): void;
  /** The last bytes before the cockpit lets go, written synchronously where it can (a dying process still restores). */
  leave(data: string): void;
  /** Lines for the normal screen, once the terminal is restored (a main program that failed at once). */
  epilogue(lines: readonly string[]): void;
  /** Keys typed; returns the function that stops listening. */
  onInput(fn: (data: string) => void): () => void;
  /** The size changed. */
  onResize(fn: () => void): () => void;
  /**
   * A client attached: `send` gives it alone the terminal modes the cockpit
   * switched on; the cockpit then redraws everything (for every client).
   */
  onAttach(fn: (send: (data: string) => void) => void): () => void;
  /** Writes failed: the terminal is gone. */
  onGone(fn: (why: string) => void): () => void;
  /** Detaches the client that typed last; returns why it cannot when it cannot (a cockpit in one process). */
  detach(): string | undefined;
  /** False while no client is attached: frames are skipped, and the next attach redraws everything. */
  watched(): boolean;
  /** Takes the terminal's input (raw mode). */
  start(): void;
  /** Gives the terminal's input back. */
  stop(): void;
}

/** Why a cockpit in one process cannot detach. */
export const CANNOT_DETACH = 'this cockpit runs in one process (embedded or TAI_SERVER=0) and cannot detach';

/** This process's own terminal, as the cockpit used it before it had a server. */
export function processTerminal(stdin: NodeJS.ReadStream, stdout: NodeJS.WriteStream): CockpitTerminal {
  const listeners: Array<() => void> = [];
  const on = <A extends unknown[]>(target: NodeJS.EventEmitter, event: string, fn: (...args: A) => void): (() => void) => {
    const handler = fn as (...args: unknown[]) => void;
    target.on(event, handler);
    const off = (): void => void target.off(event, handler);
    listeners.push(off);
    return off;
  };
  return {
    get cols() {
      return layoutSize(stdout.columns || 80, 1).cols;
    },
    get rows() {
      return layoutSize(1, stdout.rows || 24).rows;
    },
    write: (data) => void stdout.write(data),
    leave: (data) => writeNow(fdOf(stdout), data),
    epilogue: (lines) => void (lines.length > 0 && process.stderr.write(`${lines.join('\n')}\n`)),
    onInput: (fn) => on(stdin, 'data', (data: string | Buffer) => fn(String(data))),
    onResize: (fn) => on(stdout, 'resize', fn),
    onAttach: () => () => {},
    onGone: (fn) => on(stdout, 'error', (err: Error) => fn(err.message)),
    detach: () => CANNOT_DETACH,
    watched: () => true,
    start() {
      if (stdin.isTTY) stdin.setRawMode(true);
      stdin.setEncoding('utf8');
      stdin.resume();
    },
    stop() {
      for (const off of listeners.splice(0)) off();
      if (stdin.isTTY) stdin.setRawMode(false);
      stdin.pause();
    },
  };
}
