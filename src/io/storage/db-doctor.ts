/**
 * The state database's health, and a damaged one moved aside on request
 * (`tai doctor --reset-db`; docs/security.md, "Storage faults"): the old file
 * is never deleted, only renamed with a timestamp, so it can still be sent to
 * someone or recovered with the sqlite3 shell's `.recover`.
 */
import { existsSync, renameSync } from 'node:fs';
import { faultOf, openStateDb, StateDbCorruptError, type StateDbError } from './state-db.js';

/** What the doctor found. */
export type DbHealth =
  | { readonly kind: 'missing' }
  | { readonly kind: 'healthy' }
  | { readonly kind: 'faulty'; readonly fault: StateDbError };

/** Opens the database at `path` and runs SQLite's quick check; nothing is changed. */
export function checkStateDb(path: string): DbHealth {
  if (!existsSync(path)) return { kind: 'missing' };
  try {
    const db = openStateDb(path);
    try {
      const verdict = String(db.pragma('quick_check', { simple: true }));
      if (verdict !== 'ok') return { kind: 'faulty', fault: new StateDbCorruptError(path, `quick_check: ${verdict}`) };
    } finally {
      db.close();
    }
    return { kind: 'healthy' };
  } catch (err) {
    const fault = faultOf(err, path);
    if (!fault) throw err;
    return { kind: 'faulty', fault };
  }
}

/** The name a damaged database is kept under: `<path>.corrupt-<UTC time>`. */
export function asideName(path: string, now: number): string {
  return `${path}.corrupt-${new Date(now).toISOString().replace(/[:.]/g, '-')}`;
}

/**
 * Moves a damaged database (with its -wal and -shm files) aside and says where; the next tai command makes a
 * fresh one. A healthy or locked database is left alone (undefined).
 */
export function moveAside(path: string, health: DbHealth, now: number): string | undefined {
  if (health.kind !== 'faulty' || !(health.fault instanceof StateDbCorruptError)) return undefined;
  const aside = asideName(path, now);
  for (const suffix of ['', '-wal', '-shm']) if (existsSync(`${path}${suffix}`)) renameSync(`${path}${suffix}`, `${aside}${suffix}`);
  return aside;
}
