/**
 * The cockpit's key tables (docs/cockpit.md): what each key after the prefix does, the keys of the mention prompt,
 * copy mode, the agent list, scroll mode and the open help, and the prefix itself. Read by the key scanner (keys.ts),
 * shown by the help (help-text.ts). Why the default prefix is Ctrl-]: docs/cockpit.md, "The prefix key".
 */
import type { Command } from '../protocol/commands.js';

/** The keys after the prefix that open the mention prompt (`@name prompt`). */
export const MENTION_KEYS: readonly string[] = ['@', 'a'];

/** The keys after the prefix that start copy mode (tmux's `[`). */
export const COPY_KEYS: readonly string[] = ['['];

/** The key after the prefix that opens the agent list (tmux's choose-tree). */
export const LIST_KEYS: readonly string[] = ['w'];

/** The keys that only leave a scrolled-back pane (tmux's copy mode's q and Esc); any other key reaches the pane after returning. */
export const SCROLL_LEAVE_KEYS: readonly string[] = ['q', '\x1b'];

/** The default prefix key, Ctrl-] (see the module comment for why). */
export const DEFAULT_PREFIX = '\x1d';

/** PageUp and PageDown: a page of scrollback after the prefix, and again in scroll mode. */
export const PAGE_UP = '\x1b[5~';
export const PAGE_DOWN = '\x1b[6~';

/** The key table after the prefix: key -> command (documented by the help overlay). */
export const PREFIX_KEYS: ReadonlyArray<{ readonly keys: readonly string[]; readonly label: string; readonly command: Command }> = [
  { keys: ['n', '\t', 'o'], label: 'n / Tab', command: { cmd: 'focus', to: 'next' } },
  { keys: ['p', '\x1b[Z'], label: 'p / Shift-Tab', command: { cmd: 'focus', to: 'prev' } },
  { keys: ['\x1b[A', '\x1bOA', 'k'], label: '↑ / k', command: { cmd: 'focus', to: 'up' } },
  { keys: ['\x1b[B', '\x1bOB', 'j'], label: '↓ / j', command: { cmd: 'focus', to: 'down' } },
  { keys: ['\x1b[D', '\x1bOD', 'h'], label: '← / h', command: { cmd: 'focus', to: 'left' } },
  { keys: ['\x1b[C', '\x1bOC', 'l'], label: '→ / l', command: { cmd: 'focus', to: 'right' } },
  { keys: ['x'], label: 'x', command: { cmd: 'close' } },
  { keys: ['z'], label: 'z', command: { cmd: 'zoom' } },
  { keys: [PAGE_UP], label: 'PageUp', command: { cmd: 'scroll', pages: -1 } },
  { keys: [PAGE_DOWN], label: 'PageDown', command: { cmd: 'scroll', pages: 1 } },
  { keys: ['?'], label: '?', command: { cmd: 'help' } },
  { keys: ['D'], label: 'D', command: { cmd: 'lane_diff' } },
  { keys: ['d'], label: 'd', command: { cmd: 'detach' } },
];

/** The command of each key after the prefix. */
export const PREFIX_COMMANDS: ReadonlyMap<string, Command> = new Map<string, Command>(PREFIX_KEYS.flatMap((e) => e.keys.map((k) => [k, e.command] as const)));

/** The keys that scroll the help while it is open: a line or a page each way; any other key closes it. */
export const HELP_SCROLL: ReadonlyMap<string, { readonly lines?: number; readonly pages?: number }> = new Map([
  ['j', { lines: 1 }],
  ['\x1b[B', { lines: 1 }],
  ['\x1bOB', { lines: 1 }],
  ['k', { lines: -1 }],
  ['\x1b[A', { lines: -1 }],
  ['\x1bOA', { lines: -1 }],
  [' ', { pages: 1 }],
  ['\x1b[6~', { pages: 1 }],
  ['\x1b[5~', { pages: -1 }],
]);

/**
 * Parses a prefix name: a literal single character, `C-x` / `^x` for
 * Ctrl+x (letters and `[]\\^_@`). Returns undefined when it is not one byte.
 */
export function parsePrefix(name: string): string | undefined {
  const m = /^(?:C-|\^)(.)$/i.exec(name);
  if (m) {
    const c = m[1].toUpperCase().charCodeAt(0);
    if (c >= 0x40 && c <= 0x5f) return String.fromCharCode(c - 0x40);
    return undefined;
  }
  return [...name].length === 1 && name.length === 1 ? name : undefined;
}

/** The printable name of a prefix byte (`C-]`), for the help overlay. */
export function prefixName(prefix: string): string {
  const c = prefix.charCodeAt(0);
  return c < 0x20 ? `C-${String.fromCharCode(c + 0x40).toLowerCase()}` : prefix;
}
