/**
 * The outer terminal's modes: what the cockpit switches on when it starts and
 * what it always switches off again (normal exit, a signal, an uncaught
 * exception). Ink never enters the alternate screen itself.
 */
import { writeSync } from 'node:fs';

/**
 * Alternate screen, bracketed paste, autowrap off (a client smaller than a shared cockpit sees rows cut at its edge, as
 * tmux shows them, not wrapped), screen cleared, cursor home, and the title pushed on the title stack (CSI 22;0 t) so
 * leaving gives it back (CSI 23;0 t).
 */
export const ENTER = '\x1b[?1049h\x1b[?2004h\x1b[?7l\x1b[0m\x1b[H\x1b[2J\x1b[22;0t';

/** Sets the terminal's window and icon title (OSC 0); the text must be made safe first (src/core/text/title.ts). */
export const setTitle = (safe: string): string => `\x1b]0;${safe}\x07`;

/**
 * Mouse reporting as tmux's `mouse on`: presses and releases (1000), drags (1002), SGR form (1006). While on, terminals
 * select text only with Shift (Option on Terminal.app); TAI_MOUSE=0 leaves the mouse to the terminal.
 */
export const MOUSE_ON = '\x1b[?1000h\x1b[?1002h\x1b[?1006h';

/**
 * Leaves everything the cockpit or a pane's program may have switched on (autowrap back on, a half-written synchronized
 * update, colours, mouse, application keys, bracketed paste, hidden cursor, alternate screen) and pops ENTER's title;
 * a terminal without a title stack ignores it, and the cockpit clears a title it set (drawing.ts).
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
