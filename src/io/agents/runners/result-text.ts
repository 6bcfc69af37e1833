/**
 * The bounded result of one agent. A flooder must not grow the supervisor
 * without limit, yet the caller needs both the start (the task's framing) and
 * the end (usually the answer): past RESULT_MAX the middle is dropped and a
 * visible marker says how much.
 */

/** The most characters of one result kept in memory and stored as a record. */
export const RESULT_MAX = 4_000_000;

/** An append-only text with a bounded middle. */
export class ResultText {
  #head = '';
  #tail = '';
  #dropped = 0;

  constructor(readonly max: number = RESULT_MAX) {}

  /** Appends a piece of the result. */
  append(text: string): void {
    if (text === '') return;
    const half = Math.floor(this.max / 2);
    if (this.#dropped === 0 && this.#tail === '' && this.#head.length + text.length <= half) {
      this.#head += text;
      return;
    }
    if (this.#head.length < half) {
      const room = half - this.#head.length;
      this.#head += text.slice(0, room);
      text = text.slice(room);
    }
    this.#tail += text;
    // Trim in batches so a stream of small pieces stays linear.
    if (this.#tail.length > 2 * half) {
      const cut = this.#tail.length - half;
      this.#tail = this.#tail.slice(cut);
      this.#dropped += cut;
    }
  }

  /** Characters dropped from the middle so far. */
  get dropped(): number {
    return this.#dropped + Math.max(0, this.#tail.length - Math.floor(this.max / 2));
  }

  /** The kept text: at most `max` characters, with a marker where the middle was dropped. */
  toString(): string {
    const half = Math.floor(this.max / 2);
    if (this.#head.length + this.#tail.length <= this.max && this.#dropped === 0) return this.#head + this.#tail;
    const tail = this.#tail.length > half ? this.#tail.slice(this.#tail.length - half) : this.#tail;
    return `${this.#head}\n[... ${this.dropped} characters dropped: the result was longer than ${this.max} ...]\n${tail}`;
  }
}
