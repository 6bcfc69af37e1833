/**
 * The bounded result of one agent. A flooder must not grow the supervisor
 * without limit, yet the caller needs both the start (the task's framing) and
 * the end (usually the answer): past RESULT_MAX the middle is dropped and a
 * visible marker says how much.
 */

/** The most characters of one result kept in memory and stored as a record. */
export const RESULT_MAX = 4_000_000;

/**
 * Pieces gathered before they join the text, so a token's string dies young and the kept text grows by one flat
 * string per this many pieces, not a string and a link per token in V8's old space.
 */
const PIECES_JOINED = 128;
/** Units gathered that are joined at once however few the pieces (a flood's pieces are long). */
const PIECES_UNITS_MAX = 65_536;

/** An append-only text with a bounded middle. */
export class ResultText {
  #head = '';
  #tail = '';
  #dropped = 0;
  readonly #pieces: string[] = [];
  #piecesUnits = 0;

  constructor(readonly max: number = RESULT_MAX) {}

  /** Appends a piece of the result. */
  append(text: string): void {
    if (text === '') return;
    this.#pieces.push(text);
    this.#piecesUnits += text.length;
    if (this.#pieces.length >= PIECES_JOINED || this.#piecesUnits >= PIECES_UNITS_MAX) this.#join();
  }

  /** Adds the pieces gathered, joined into one string. */
  #join(): void {
    if (this.#pieces.length === 0) return;
    let text = this.#pieces.join('');
    this.#pieces.length = 0;
    this.#piecesUnits = 0;
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
    this.#join();
    return this.#dropped + Math.max(0, this.#tail.length - Math.floor(this.max / 2));
  }

  /** The kept text: at most `max` characters, with a marker where the middle was dropped. */
  toString(): string {
    this.#join();
    const half = Math.floor(this.max / 2);
    if (this.#head.length + this.#tail.length <= this.max && this.#dropped === 0) return this.#head + this.#tail;
    const tail = this.#tail.length > half ? this.#tail.slice(this.#tail.length - half) : this.#tail;
    return `${this.#head}\n[... ${this.dropped} characters dropped: the result was longer than ${this.max} ...]\n${tail}`;
  }
}
