/**
 * Where a long result goes when the state database may refuse it (docs/security.md, "Storage faults"): a record,
 * after waiting a lock out without blocking the loop; else a file of the state folder the result names; else the
 * answer itself. Nothing is cut and no record is named that does not exist.
 */
import { messageOf } from '../../core/errors.js';
import { assertNever } from '../../core/never.js';
import { codePoints, rememberCount } from '../../core/agents/claim-check.js';
import type { RecordDraft, RecordStore } from '../storage/records.js';
import { checkpointSoon, faultOf, StateDbLockedError, withBusyTimeout } from '../storage/state-db.js';
import { keepResult } from '../storage/unsaved.js';

/** A locked database is tried again this often while a result waits. */
export const RETRY_EVERY_MS = 1_000;
/** Each retry waits at most this long for the lock, so the loop is never held long. */
const RETRY_BUSY_MS = 50;

/** Where a whole long result is. */
export type ResultPlace =
  | { readonly kind: 'record'; readonly id: string }
  | { readonly kind: 'file'; readonly path: string; readonly why: string }
  | { readonly kind: 'inline'; readonly why: string };

/** How to store one long result. */
export interface StoreResultOptions {
  readonly records: RecordStore;
  /** The state folder, for the kept file; undefined (a board without a state folder): the answer holds it. */
  readonly stateDir: string | undefined;
  /** The total wait for a locked database (ms). */
  readonly waitMs: number;
  readonly now: () => number;
  /** Waits `ms` (a real timer unless a test fakes the clock). */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Lets the loop turn between two parts of a record (setImmediate unless a test counts the turns). */
  readonly turn?: () => Promise<void>;
  /** Told after each record written whole (its full-text index is built after it, src/io/agents/record-indexer.ts). */
  readonly written?: () => void;
}

/**
 * Stores a long result as record `id`, one INSERT of at most RECORD_PART code points a turn of the loop, so no
 * turn is held long; the record is seen once its last part is in. A lock is waited out without blocking
 * (`locked` told once) up to `waitMs`; past that, or on any other fault, the whole result goes to a file.
 */
export async function storeRecord(options: StoreResultOptions, raw: string, label: string, id: string, locked?: (since: number) => void): Promise<ResultPlace> {
  const turn = options.turn ?? (() => new Promise<void>((resolve) => setImmediate(resolve)));
  const retry = new Retry(options, locked);
  const records = options.records;
  let draft: RecordDraft | undefined;
  try {
    draft = await retry.step(() => records.begin({ label, id }, options.now()));
    const begun = draft;
    let done = raw.length === 0;
    while (!done) {
      await turn();
      const from = begun.unit;
      done = await retry.step(() => records.writePart(begun, raw));
      checkpointSoon(records.db, 3 * (begun.unit - from));
    }
    await turn();
    await records.syncLog();
    await retry.step(() => records.finish(begun));
    // Counted part by part: what follows (the answer, the panel's summary) does not count the whole text again.
    rememberCount(raw, begun.cp);
  } catch (err) {
    if (draft !== undefined) dropDraft(records, draft);
    return keep(options, raw, label, id, err instanceof WaitedOut ? err.message : messageOf(faultOf(err, records.db.name) ?? err));
  }
  options.written?.();
  return { kind: 'record', id };
}

/** The database stayed locked for the whole wait. */
class WaitedOut extends Error {}

/** One step of a record's write, tried again while the database is locked. */
class Retry {
  /** When the lock now waited out began; undefined while none is. */
  #since: number | undefined;
  #told = false;

  constructor(
    readonly options: StoreResultOptions,
    readonly locked: ((since: number) => void) | undefined,
  ) {}

  /** Runs `fn`; while it meets a lock, sleeps RETRY_EVERY_MS and tries again with a short busy timeout, until the wait is over. */
  async step<T>(fn: () => T): Promise<T> {
    const { options } = this;
    const db = options.records.db;
    for (;;) {
      try {
        // The first lock waits the database's own busy timeout, as any write; a retry waits only briefly.
        const done = this.#since === undefined ? fn() : withBusyTimeout(db, RETRY_BUSY_MS, fn);
        this.#since = undefined;
        return done;
      } catch (err) {
        if (!(faultOf(err, db.name) instanceof StateDbLockedError)) throw err;
        const now = options.now();
        this.#since ??= now;
        if (!this.#told) {
          this.#told = true;
          this.locked?.(now);
        }
        const waited = now - this.#since;
        if (waited >= options.waitMs) throw new WaitedOut(`the state database ${db.name} stayed locked for ${Math.round(waited / 1000)} s`);
        const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
        await sleep(Math.min(RETRY_EVERY_MS, Math.max(1, options.waitMs - waited)));
      }
    }
  }
}

/** Drops a draft left by a failed write; when even that fails, the next open of the store removes it (its writer gone). */
function dropDraft(records: RecordStore, draft: RecordDraft): void {
  try {
    records.abandon(draft);
  } catch {
    // invisible to every reader meanwhile
  }
}

/** Keeps the whole result in a file; when that fails too, the answer holds it. */
function keep(options: StoreResultOptions, raw: string, label: string, id: string, why: string): ResultPlace {
  if (options.stateDir === undefined) return { kind: 'inline', why };
  try {
    return { kind: 'file', path: keepResult(options.stateDir, id, raw, { label, createdAt: options.now() }), why };
  } catch (err) {
    return { kind: 'inline', why: `${why}; and the file for it could not be written (${messageOf(err)})` };
  }
}

/** What a panel's summary says of a result's place. */
export function placeSuffix(raw: string, place: ResultPlace | undefined): string {
  const chars = ` · ${codePoints(raw)} chars`;
  if (!place) return chars;
  switch (place.kind) {
    case 'record':
      return `${chars} · record ${place.id}`;
    case 'file':
      return `${chars} · not stored: whole result in ${place.path}`;
    case 'inline':
      return `${chars} · not stored: whole result handed back`;
    default:
      return assertNever(place);
  }
}
