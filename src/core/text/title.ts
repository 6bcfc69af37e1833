/**
 * The outer terminal's title as tmux's `set-titles` sets it: the main program's own title (never an agent's), made safe
 * to write inside tai's OSC: one line, no control characters (a BEL or ST would end tai's OSC early and the rest would
 * run as terminal commands), whitespace collapsed, bounded.
 */

/** Characters of a title at most (code points); longer ones end in an ellipsis. */
export const TITLE_MAX = 128;

/** The title made safe: its first line, without C0, DEL or C1 controls, at most TITLE_MAX characters. */
export function terminalTitle(raw: string): string {
  const line = raw.split(/[\r\n\u2028\u2029]/, 1)[0] ?? '';
  const plain = line
    .replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  const chars = [...plain];
  return chars.length <= TITLE_MAX ? plain : `${chars.slice(0, TITLE_MAX - 1).join('')}…`;
}
