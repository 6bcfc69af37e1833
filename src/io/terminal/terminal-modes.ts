/**
 * The outer terminal's modes: what the cockpit switches on when it starts and
 * what it always switches off again (normal exit, a signal, an uncaught
 * exception). Ink never enters the alternate screen itself.
 */
import { writeSync } from 'node:fs';

/**
 * Alternate screen, bracketed paste reported to us, autowrap off (a client
 * smaller than the layout of a cockpit it shares sees its rows cut at its
 * right edge, as tmux shows them, not wrapped over the next), screen
 * cleared, cursor home, and the terminal's title pushed on its title stack
 * (xterm's CSI 22;0 t) so that leaving gives it back (CSI 23;0 t).
 */
export const ENTER = '\x1b[?1049h\x1b[?2004h\x1b[?7l\x1b[0m\x1b[H\x1b[2J\x1b[22;0t';

/** Sets the terminal's window and icon title (OSC 0); the text must be made safe first (src/core/text/title.ts). */
export const setTitle = (safe: string): string => `\x1b]0;${safe}\x07`;

/**
 * Mouse reporting as tmux asks for it with `mouse on`: presses and releases
 * (1000), motion while a button is held (1002), in SGR form (1006). While it
 * is on, the terminal selects text only with Shift held (xterm, iTerm2,
 * GNOME Terminal, kitty, WezTerm; Option on Terminal.app); TAI_MOUSE=0 leaves
 * the mouse to the terminal.
 */
export const MOUSE_ON = '\x1b[?1000h\x1b[?1002h\x1b[?1006h';

/**
 * Leaves everything the cockpit or a program in a pane may have switched on:
 * autowrap (back on, the terminal's default), a half-written synchronized update, colours, mouse reporting, application
 * cursor keys and keypad, bracketed paste, a hidden cursor, the alternate
 * screen; and pops the title pushed by ENTER (a terminal without a title
 * stack ignores it: the cockpit clears a title it set before, see drawing.ts).
 */
export const LEAVE =
  '\x1b[?7h\x1b[?2026l\x1b[0m\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1l\x1b>\x1b[?2004l\x1b[?25h\x1b[?1049l\x1b[23;0t';

/** Writes to a file descriptor synchronously, ignoring a closed terminal. */
export function writeNow(fd: number, data: string): void {
  try {
    writeSync(fd, data);
  } catch {
    // The terminal is gone (SIGHUP); nothing to restore.
  }
}
