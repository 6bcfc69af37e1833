/**
 * Keys on their way to the main pane's program, adapted to the modes it set on its own (headless) terminal: cursor
 * keys in application mode (DECCKM) go as `ESC O x`, and paste markers only when it asked for bracketed paste (the
 * cockpit always asks the outer terminal for them).
 */

/** The program's input modes, as its terminal tracks them. */
export interface PaneInputModes {
  readonly applicationCursorKeys: boolean;
  readonly bracketedPaste: boolean;
}

/** Rewrites raw keys for a program in `modes`. */
export function toPane(data: string, modes: PaneInputModes): string {
  let out = data;
  if (!modes.bracketedPaste && out.includes('\x1b[20')) out = out.replace(/\x1b\[20[01]~/g, '');
  if (out.includes('\x1b')) {
    out = modes.applicationCursorKeys
      ? out.replace(/\x1b\[([ABCDHF])/g, '\x1bO$1')
      : out.replace(/\x1bO([ABCDHF])/g, '\x1b[$1');
  }
  return out;
}
