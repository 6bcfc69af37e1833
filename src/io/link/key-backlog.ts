/**
 * A bound on the keys that wait for the main program (docs/security.md, "Keys for a program that does not read"): one
 * that never reads would queue every key in the server. As a full terminal input buffer does, keys past
 * KEYS_WAITING_MAX are dropped, never stopping the client, so prefix + d still works; said once a stall.
 */

/** The most bytes of keys that may wait for the main program to read them. */
export const KEYS_WAITING_MAX = 1_048_576;

/**
 * `write` wrapped so that nothing is queued past `max` bytes waiting
 * (`waiting()`: bytes written but not yet taken by the program); `say` is
 * told when keys start being dropped and when they are taken again.
 */
export function boundKeys(write: (data: string) => void, waiting: () => number, say: (line: string) => void, max: number = KEYS_WAITING_MAX): (data: string) => void {
  let dropped = 0;
  return (data) => {
    const queued = waiting();
    if (queued > 0 && queued + Buffer.byteLength(data, 'utf8') > max) {
      if (dropped === 0) say(`the main program is not reading its input: keys are dropped while ${queued} bytes wait for it (limit ${max})`);
      dropped += data.length;
      return;
    }
    if (dropped > 0) {
      say(`the main program reads its input again; ${dropped} characters typed meanwhile were dropped`);
      dropped = 0;
    }
    write(data);
  };
}
