/**
 * The control codes both escape-sequence parsers (the sanitizer and the
 * count clamp) read, by their ECMA-48 names, so the two agree on where a
 * sequence starts and ends.
 */

/** Escape: starts a sequence. */
export const ESC = 0x1b;
/** Bell: ends an OSC string (xterm's way). */
export const BEL = 0x07;
/** Cancel and substitute: abort any sequence. */
export const CAN = 0x18;
export const SUB = 0x1a;
/** Delete: ignored inside sequences, dropped in text. */
export const DEL = 0x7f;
/** The 8-bit control sequence introducer and string terminator. */
export const C1_CSI = 0x9b;
export const C1_ST = 0x9c;
