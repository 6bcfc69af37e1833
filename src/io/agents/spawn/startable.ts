/**
 * The folder `src/io/agents/spawn/`: what a spawn asks before an agent starts (the registry, this check, the queue
 * at the cap, the demo's agents). This file: whether it can start, asked before a panel opens, so a program not
 * on PATH or a missing folder is refused at once with its reason (exit 127, as a shell says it), not a bare exit
 * in a panel that leaves.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { RequestError } from '../../../core/errors.js';
import { which } from '../../path-lookup.js';

/** The exit code `tai spawn` gives an agent that cannot be started (the shell's). */
export const CANNOT_START_EXIT = 127;

/** An agent that cannot be started: its program or its folder is missing. */
export class CannotStartError extends RequestError {
  readonly cannotStart = true;
}

/** Throws a CannotStartError when `argv[0]` is not an executable file (on PATH, or at its path) or `cwd` is not a folder. */
export function checkStartable(argv: readonly string[], cwd: string | undefined, env: NodeJS.ProcessEnv = process.env): void {
  const dir = resolve(cwd ?? process.cwd());
  if (cwd !== undefined && !isDirectory(dir)) throw new CannotStartError(`cannot start in ${cwd}: no such folder`);
  const [file] = argv;
  if (file === undefined || which(file, env.PATH, dir) !== undefined) return;
  throw new CannotStartError(`cannot start ${file}: ${file.includes('/') ? 'no such executable file' : 'not found on PATH'}`);
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
