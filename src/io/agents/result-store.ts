/**
 * Where a long result goes (the claim check, docs/spec.md, "Claim check") when
 * the state database may refuse it (docs/security.md, "Storage faults"): into a
 * record, after waiting out a lock without blocking the loop; else whole into
 * a file of the state folder that the result names; else (that failed too)
 * whole into the answer itself. Nothing is cut and no record is named that
 * does not exist.
 *
 * Vocabulary:
 * - place: where the whole result ended up: a record, a kept file, or the
 *   answer (`inline`).
 * - retry: a locked database is tried again every RETRY_EVERY_MS with a
 *   short busy timeout, until the total wait (STATE_DB_WAIT_MS) has passed.
 */
import { messageOf } from '../../core/errors.js';
import { assertNever } from '../../core/never.js';
import { codePoints } from '../../core/agents/claim-check.js';
import type { RecordStore } from '../storage/records.js';
import { faultOf, StateDbLockedError, withBusyTimeout } from '../storage/state-db.js';
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
  /** Told after each record written (its full-text index is built after it, src/io/agents/record-indexer.ts). */
  readonly written?: (record: { readonly id: string; readonly text: string }) => void;
}

/** The first try, synchronous: the record, or a fault; a lock is `locked` (retry with `waitOut`). */
export function storeNow(options: StoreResultOptions, raw: string, label: string, id: string): ResultPlace | 'locked' {
  try {
    options.records.put(raw, { label, id }, options.now());
    options.written?.({ id, text: raw });
    return { kind: 'record', id };
  } catch (err) {
    const fault = faultOf(err, options.records.db.name);
    if (fault instanceof StateDbLockedError) return 'locked';
    return keep(options, raw, label, id, messageOf(fault ?? err));
  }
}

/** Retries a locked database until `waitMs` has passed since `since`, then keeps the result in a file. */
export async function waitOut(options: StoreResultOptions, raw: string, label: string, id: string, since: number): Promise<ResultPlace> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  let why = `the state database ${options.records.db.name} stayed locked for ${Math.round(options.waitMs / 1000)} s`;
  while (options.now() - since < options.waitMs) {
    await sleep(Math.min(RETRY_EVERY_MS, Math.max(1, options.waitMs - (options.now() - since))));
    try {
      withBusyTimeout(options.records.db, RETRY_BUSY_MS, () => options.records.put(raw, { label, id }, options.now()));
      options.written?.({ id, text: raw });
      return { kind: 'record', id };
    } catch (err) {
      const fault = faultOf(err, options.records.db.name);
      if (!(fault instanceof StateDbLockedError)) return keep(options, raw, label, id, messageOf(fault ?? err));
      why = `the state database ${options.records.db.name} stayed locked for ${Math.round((options.now() - since) / 1000)} s`;
    }
  }
  return keep(options, raw, label, id, why);
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
