/**
 * Agents asked for in one turn of the loop start a turn apart: each start costs a few milliseconds, and a fan-out
 * of eight would hold one turn between them (docs/security.md, "Text without spaces"). The first goes at once.
 */

/** Resolves in the event loop's next turn (an immediate queued from an immediate runs after the next poll). */
const nextTurn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

/** The order of starts: one a turn. */
export class StartTurns {
  /** When the last start taken runs; undefined once the loop turned with none after it. */
  #last: Promise<void> | undefined;

  /** Resolves when this start may run: now when no start ran in this turn, else a turn after the one before it. */
  take(): Promise<void> {
    const mine = this.#last === undefined ? Promise.resolve() : this.#last.then(nextTurn);
    this.#last = mine;
    // A turn after this start, with no start after it, the next one goes at once again.
    void mine.then(() =>
      setImmediate(() => {
        if (this.#last === mine) this.#last = undefined;
      }),
    );
    return mine;
  }
}
