/**
 * The prefix key the user chose (TAI_PREFIX; docs/cockpit.md, "The prefix key"), refused when it cannot be read or would
 * take a key every REPL needs: a silent fallback leaves the user pressing a key that does nothing, and Enter (`C-m`) as
 * the prefix eats the next character of every line.
 */
import { StartRefusedError } from '../errors.js';
import { DEFAULT_PREFIX, parsePrefix, prefixName } from './keys.js';

/** The exit code of a bad prefix: a usage error (sysexits EX_USAGE), as for a bad command line. */
export const PREFIX_EXIT = 64;

/** Keys no prefix may be: each is typed into every shell and REPL all the time. */
export const REFUSED_PREFIXES: Readonly<Record<string, string>> = {
  '\r': 'Enter',
  '\n': 'Enter (C-j)',
  '\t': 'Tab',
  '\x7f': 'Backspace',
  '\b': 'Backspace (C-h)',
  '\x1b': 'Esc',
  '\x03': 'Ctrl-C',
  '\x04': 'Ctrl-D',
};

/** The prefix byte for `name` (unset or empty: the default); throws a StartRefusedError (exit 64) saying why not. */
export function choosePrefix(name: string | undefined, source = 'TAI_PREFIX'): string {
  if (name === undefined || name === '') return DEFAULT_PREFIX;
  const prefix = parsePrefix(name);
  if (prefix === undefined) {
    throw new StartRefusedError(
      `tai: ${source}=${JSON.stringify(name)} is not a key: write C-x or ^x for Ctrl+x (a letter or one of @ [ \\ ] ^ _), ` +
        `or one character; unset it for the default ${prefixName(DEFAULT_PREFIX)}`,
      PREFIX_EXIT,
    );
  }
  const taken = REFUSED_PREFIXES[prefix];
  if (taken !== undefined) {
    throw new StartRefusedError(
      `tai: ${source}=${JSON.stringify(name)} is ${taken}, which the main program needs; choose another key, ` +
        `or unset it for the default ${prefixName(DEFAULT_PREFIX)}`,
      PREFIX_EXIT,
    );
  }
  return prefix;
}
