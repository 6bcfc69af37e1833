/**
 * The main program before and after the cockpit: found on PATH before the terminal is taken (`tai -- nosuchprog` must
 * not flash the screen and exit with nothing said), and when it fails at once, its last lines shown on the normal
 * screen after the cockpit restores it, where the user can read them.
 */
import type { Terminal } from '@xterm/headless';
import { StartRefusedError } from '../../../core/errors.js';
import { which } from '../../path-lookup.js';

/** The exit code of a program that cannot be started (the shell's). */
export const NOT_FOUND_EXIT = 127;

/** A main program that exits non-zero this soon after its start counts as failing at once. */
export const FAILS_AT_ONCE_MS = 3_000;

/** How many of its last lines are shown. */
export const LAST_LINES = 10;

/** The main program cannot be started. */
export class MainProgramError extends StartRefusedError {
  constructor(message: string) {
    super(message, NOT_FOUND_EXIT);
  }
}

/** The program the main pane runs: the command given, or `$SHELL`, or /bin/sh. */
export function mainArgv(argv: readonly string[], env: NodeJS.ProcessEnv): readonly string[] {
  return argv.length > 0 ? argv : [env.SHELL || '/bin/sh'];
}

/** The cockpit's name on its status line: `tai`, its pid and the main program's file name. */
export function cockpitName(pid: number, argv: readonly string[]): string {
  const program = (argv[0] ?? '').split('/').pop() ?? '';
  return program === '' ? `tai ${pid}` : `tai ${pid} ${program}`;
}

/** Throws a MainProgramError naming the program when it is not an executable file (on PATH, or at its path). */
export function checkMainProgram(argv: readonly string[], env: NodeJS.ProcessEnv, cwd: string = process.cwd()): void {
  const [file] = mainArgv(argv, env);
  if (file === undefined || which(file, env.PATH, cwd) !== undefined) return;
  const where = file.includes('/') ? 'no such executable file' : 'not found on PATH';
  throw new MainProgramError(`tai: cannot start ${file}: ${where}`);
}

/** The last non-empty lines of a screen, as plain text, for the normal screen after the cockpit ends. */
export function lastLines(term: Terminal, count: number = LAST_LINES): string[] {
  const buffer = term.buffer.active;
  const lines: string[] = [];
  for (let y = 0; y < buffer.length; y++) lines.push(buffer.getLine(y)?.translateToString(true) ?? '');
  while (lines.length > 0 && lines[lines.length - 1]?.trim() === '') lines.pop();
  return lines.slice(-count);
}
