/**
 * Words quoted for a POSIX shell on another machine. ssh joins its remote
 * arguments with spaces and hands the one string to the host's login shell,
 * so every word tai sends must arrive as exactly that word: nothing expanded,
 * split, globbed or run. Pure; the table tests hold hostile words.
 */

/** A word that no POSIX shell changes: left bare so `ps` on the host stays readable. */
const PLAIN = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** A word that cannot be sent: a shell string cannot hold a NUL byte. */
export class UnquotableWordError extends Error {
  override readonly name = 'UnquotableWordError';
  constructor(readonly word: string) {
    super('an argument holds a NUL byte, which no command line can carry; remove it');
  }
}

/** One word, quoted so a POSIX shell reads it back unchanged (single quotes; a quote as '\''). */
export function shQuote(word: string): string {
  if (word.includes('\0')) throw new UnquotableWordError(word);
  if (PLAIN.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** An argv as one command line for a POSIX shell: each word quoted, joined by spaces. */
export function shCommand(argv: readonly string[]): string {
  return argv.map(shQuote).join(' ');
}
