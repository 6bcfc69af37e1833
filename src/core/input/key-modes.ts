/**
 * The key scanner's modes (keys.ts) and what one whole key does in the modal
 * ones: after the prefix, in scroll mode, in the open help, in the mention
 * prompt and in copy mode. A pure step: the mode and the key in, the actions
 * and the bytes for the pane out, and the mode after it.
 */
import type { Command } from '../protocol/commands.js';
import type { MouseEvent } from './mouse.js';
import { COPY_KEYS, HELP_SCROLL, LIST_KEYS, MENTION_KEYS, PAGE_DOWN, PAGE_UP, PREFIX_COMMANDS, SCROLL_LEAVE_KEYS } from './key-table.js';

/** The byte that starts every escape sequence, and a key of its own when alone. */
export const ESC = '\x1b';
/** A bracketed paste's start and end markers, as the terminal sends them. */
export const PASTE_START = '\x1b[200~';
export const PASTE_END = '\x1b[201~';

/** The scanner's modes (keys.ts, "Vocabulary"); prompt-paste is a paste inside the mention prompt. */
export type Mode = 'normal' | 'prefix' | 'scroll' | 'help' | 'paste' | 'prompt' | 'prompt-paste' | 'copy';

/** What one chunk turned into, in order. */
export type KeyAction =
  | { readonly kind: 'command'; readonly command: Command }
  | { readonly kind: 'input'; readonly data: string }
  /** The prefix and a mention key: open the mention prompt. */
  | { readonly kind: 'mention' }
  /** The prefix and the list key: open the agent list. */
  | { readonly kind: 'list' }
  /** A key (or, with `paste`, a whole bracketed paste) for the open mention prompt. */
  | { readonly kind: 'prompt'; readonly key: string; readonly paste?: boolean }
  /** The prefix and a copy key: copy mode starts on the focused pane (src/core/input/copy-mode.ts). */
  | { readonly kind: 'copy' }
  /** A key for copy mode, until the cockpit says it ended. */
  | { readonly kind: 'copy-key'; readonly key: string }
  /** A key that scrolls the open help (HELP_SCROLL): by lines, or by pages of the help's height. */
  | { readonly kind: 'help-scroll'; readonly lines?: number; readonly pages?: number }
  /** A mouse report of the outer terminal (src/core/input/mouse.ts): never a key, never a pane's bytes as they came. */
  | { readonly kind: 'mouse'; readonly event: MouseEvent };

/** Where a key's outcome goes: an action, or bytes for the focused pane. */
export interface KeyOut {
  readonly action: (a: KeyAction) => void;
  readonly pass: (data: string) => void;
}

/** One key after the prefix: a command, a prompt, copy mode, the list, the prefix itself for the pane, or nothing. */
function afterPrefix(key: string, prefix: string, out: KeyOut): Mode {
  if (key === prefix) {
    out.pass(prefix);
    return 'normal';
  }
  if (MENTION_KEYS.includes(key)) {
    out.action({ kind: 'mention' });
    return 'prompt';
  }
  if (COPY_KEYS.includes(key)) {
    out.action({ kind: 'copy' });
    return 'copy';
  }
  if (LIST_KEYS.includes(key)) {
    out.action({ kind: 'list' });
    return 'normal';
  }
  const c = PREFIX_COMMANDS.get(key);
  if (!c) return 'normal'; // an unbound key after the prefix is dropped, as in tmux
  out.action({ kind: 'command', command: c });
  return c.cmd === 'scroll' ? 'scroll' : c.cmd === 'help' ? 'help' : 'normal';
}

/** One key in scroll mode: PageUp/PageDown page; any other key returns to the live screen. */
function inScroll(key: string, prefix: string, out: KeyOut): Mode {
  if (key === PAGE_UP || key === PAGE_DOWN) {
    out.action({ kind: 'command', command: { cmd: 'scroll', pages: key === PAGE_UP ? -1 : 1 } });
    return 'scroll';
  }
  // Back to the live screen first; then the key is the program's, but for the keys that only leave (tmux's q and Esc) and the prefix.
  out.action({ kind: 'command', command: { cmd: 'scroll', pages: 0 } });
  if (key !== prefix && !SCROLL_LEAVE_KEYS.includes(key)) out.pass(key);
  return key === prefix ? 'prefix' : key === PASTE_START ? 'paste' : 'normal';
}

/** One whole key in `mode`; returns the mode after it. */
export function modalKey(mode: Mode, key: string, prefix: string, out: KeyOut): Mode {
  switch (mode) {
    case 'prefix':
      return afterPrefix(key, prefix, out);
    case 'scroll':
      return inScroll(key, prefix, out);
    case 'help': {
      const by = HELP_SCROLL.get(key);
      if (by) {
        out.action({ kind: 'help-scroll', ...by });
        return 'help';
      }
      out.action({ kind: 'command', command: { cmd: 'help' } });
      return 'normal';
    }
    case 'prompt':
      if (key === PASTE_START) return 'prompt-paste';
      out.action({ kind: 'prompt', key });
      return 'prompt';
    case 'copy':
      out.action({ kind: 'copy-key', key });
      return 'copy';
    case 'normal':
    case 'paste':
    case 'prompt-paste':
      out.pass(key);
      return mode;
  }
}
