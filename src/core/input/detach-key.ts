/**
 * The one key a read-only client may press: the prefix, then `d`, detaches
 * it (docs/protocol.md, "Several clients"). Everything else it types is dropped
 * without reaching the key router, so its keys never mix with the writing
 * client's prefix state. The prefix may end one chunk and `d` begin the next.
 */

/** The key after the prefix that detaches (tmux's `d`). */
export const DETACH_KEY = 'd';

/** Watches a read-only client's input for prefix + d. */
export class DetachKeyWatch {
  private armed = false;

  constructor(private readonly prefix: string) {}

  /** True when `chunk` completes the prefix followed by `d`. */
  push(chunk: string): boolean {
    for (const ch of chunk) {
      if (this.armed && ch === DETACH_KEY) return true;
      this.armed = ch === this.prefix;
    }
    return false;
  }
}
