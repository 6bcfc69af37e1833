/**
 * Builds the records' full-text index a part per idle turn, so a long result is searchable soon without its
 * tokenizing holding the loop; poked after each record and once at start (finishing what a crash left). A refused
 * step is tried later; until then search finds the record by its scan.
 */
import type { RecordStore } from '../storage/records.js';

/** After a refused step, the next try waits this long. */
export const INDEX_RETRY_MS = 5_000;

/** Indexes a record store's records, a part per turn of the loop. */
export class RecordIndexer {
  readonly #records: RecordStore;
  #busy = false;
  #stopped = false;
  #timer: NodeJS.Immediate | NodeJS.Timeout | undefined;

  constructor(records: RecordStore) {
    this.#records = records;
  }

  /** There may be something to index (a record was just stored): start stepping, unless already at it. */
  poke(): void {
    if (this.#busy || this.#stopped) return;
    this.#busy = true;
    this.#next();
  }

  /** Stops at the end of the current part; what is left is indexed by the next start. */
  stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) {
      clearImmediate(this.#timer as NodeJS.Immediate);
      clearTimeout(this.#timer as NodeJS.Timeout);
    }
    this.#timer = undefined;
    this.#busy = false;
  }

  #next(): void {
    // Unreferenced: a process that is done does not stay for the index (the next one finishes it).
    this.#timer = setImmediate(() => this.#step()).unref();
  }

  #step(): void {
    this.#timer = undefined;
    if (this.#stopped) return;
    let more: boolean;
    try {
      more = this.#records.indexStep();
    } catch {
      this.#timer = setTimeout(() => this.#step(), INDEX_RETRY_MS).unref();
      return;
    }
    if (more) this.#next();
    else this.#busy = false;
  }
}
