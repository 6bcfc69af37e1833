/**
 * Reading a subcommand's command line: `parseArgs` with positionals, and on
 * a bad line the one way every subcommand says so (`tai NAME: why`, then its
 * usage) before exiting with USAGE_EXIT.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { messageOf } from '../core/errors.js';

/** The exit code for a command line that makes no sense (sysexits EX_USAGE; 2 means no cockpit). */
export const USAGE_EXIT = 64;

type Options = NonNullable<ParseArgsConfig['options']>;

/** The parsed line, or undefined once `tai NAME: why` and `usage` were written to `err` (exit with USAGE_EXIT). */
export function parseCommandLine<const O extends Options>(
  name: string,
  args: readonly string[],
  options: O,
  usage: string,
  err: (text: string) => void,
): ReturnType<typeof parseArgs<{ args: string[]; options: O; allowPositionals: true }>> | undefined {
  try {
    return parseArgs({ args: [...args], options, allowPositionals: true });
  } catch (e) {
    err(`tai ${name}: ${messageOf(e)}\n${usage}`);
    return undefined;
  }
}
