/**
 * The one logger. The cockpit owns the terminal, so what cannot be shown or
 * thrown (a failed hook, a dropped reply, a display failure) goes to a file
 * in the state folder, `tai.log`, kept under LOG_MAX_BYTES by starting over
 * with the previous file kept as `tai.log.1`.
 */
import { appendFileSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { stateDir } from './state-dir.js';

/** A log file grows to this size, then starts over (one old file kept). */
export const LOG_MAX_BYTES = 1_048_576;

/** Writes one line. */
export type Logger = (line: string) => void;

/** The log file of this user. */
export function logPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(stateDir(env), 'tai.log');
}

/** A logger appending timestamped lines to `path`; a failing log never throws. */
export function fileLogger(path: string, now: () => number = Date.now): Logger {
  let ready = false;
  let size = -1;
  return (line) => {
    try {
      if (!ready) {
        mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
        ready = true;
      }
      if (size < 0) size = fileSize(path);
      if (size > LOG_MAX_BYTES) {
        renameSync(path, `${path}.1`);
        size = 0;
      }
      const text = `${new Date(now()).toISOString()} ${process.pid} ${line.replace(/\n/g, '\n  ')}\n`;
      appendFileSync(path, text, { mode: 0o600 });
      size += Buffer.byteLength(text);
    } catch {
      // Nowhere left to report to: the work goes on (docs/architecture.md, "A failing view never stops the work").
    }
  };
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
