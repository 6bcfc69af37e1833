/**
 * The folder `src/io/storage/`: what tai keeps on disk: this database, the
 * claim-check records, the agents' rows, status without a cockpit, the log.
 *
 * The one per-user SQLite database that every tai process on the machine
 * shares (DESIGN "Persistence"; LIBRARY-NOTES "SQLite as the machine-wide
 * shared state"): the records, the agents' rows, the outage state and the run
 * log. WAL gives every process the same view with atomic transactions;
 * `synchronous=FULL` makes a committed flag (a claimed probe, a sent
 * notification) survive a crash. Each store module owns its own tables and
 * creates them through `migrate`.
 */
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import Database from 'better-sqlite3';

/** An open state database. */
export type StateDb = Database.Database;

/** A writer waits this long for another process's transaction before giving up. */
export const STATE_DB_BUSY_TIMEOUT_MS = 5_000;

/** The database's file name inside the state folder. */
export const STATE_DB_FILE = 'tai.db';

/** Refusal to go on because another process has held the database's write lock past the busy timeout. */
export class StateDbLockedError extends Error {
  override readonly name = 'StateDbLockedError';

  constructor(
    /** The database file that is locked. */
    readonly path: string,
    waitedMs: number,
    options?: { cause?: unknown },
  ) {
    super(
      `the state database ${path} is locked: another process has held it for more than ${waitedMs} ms. ` +
        `Wait for that process to finish, or find it with \`fuser ${path}\` and stop it, then run the command again.`,
      options,
    );
  }
}

/** Refusal to use a database whose folder cannot hold a WAL (a network filesystem). */
export class StateDbWalError extends Error {
  override readonly name = 'StateDbWalError';

  constructor(readonly path: string, mode: string) {
    super(
      `the state database ${path} could not switch to WAL (journal mode stayed "${mode}"); ` +
        'put it on a local filesystem (set XDG_STATE_HOME to a local folder), since WAL needs every process on one machine.',
    );
  }
}

/** The folder of tai's state: `$XDG_STATE_HOME/tai`, or `~/.local/state/tai` when that is unset or not absolute. */
export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env['XDG_STATE_HOME'];
  // The XDG spec says a relative path there is invalid and must be ignored.
  const base = xdg !== undefined && isAbsolute(xdg) ? xdg : join(homedir(), '.local', 'state');
  return join(base, 'tai');
}

/** How to open the state database; every field has the machine's default. */
export interface OpenStateDbOptions {
  /** How long a writer waits for another process's lock (tests shorten it). */
  readonly busyTimeoutMs?: number;
}

/**
 * Opens (creating if needed) the state database at `path`, by default
 * `stateDir()/tai.db`, in a folder created 0700 and a file created 0600, with
 * WAL, `synchronous=FULL` and a busy timeout.
 */
export function openStateDb(path: string = join(stateDir(), STATE_DB_FILE), options: OpenStateDbOptions = {}): StateDb {
  const busyTimeoutMs = options.busyTimeoutMs ?? STATE_DB_BUSY_TIMEOUT_MS;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  createPrivate(path);
  const db = new Database(path, { timeout: busyTimeoutMs });
  try {
    guardBusy(db, () => {
      db.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
      const mode = db.pragma('journal_mode = WAL', { simple: true });
      if (String(mode).toLowerCase() !== 'wal') throw new StateDbWalError(path, String(mode));
      db.pragma('synchronous = FULL');
    });
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * Applies one named migration once per database: runs `statements` and records
 * `name` in the `schema` table in one transaction, so two processes opening a
 * new database at once apply it exactly once; returns true if it ran now.
 * Name migrations per store and version (`outages/1`, `outages/2`), never edit one that shipped.
 */
export function migrate(db: StateDb, name: string, statements: readonly string[], now: number = Date.now()): boolean {
  return guardBusy(db, () =>
    db
      .transaction(() => {
        db.exec('CREATE TABLE IF NOT EXISTS schema (name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)');
        const applied = db.prepare<[string], { name: string }>('SELECT name FROM schema WHERE name = ?').get(name);
        if (applied !== undefined) return false;
        for (const statement of statements) db.exec(statement);
        db.prepare('INSERT INTO schema (name, applied_at) VALUES (?, ?)').run(name, now);
        return true;
      })
      .immediate(),
  );
}

/**
 * Runs `fn` against `db` and turns SQLite's busy and locked errors into a
 * `StateDbLockedError` that says what to do; every store wraps its work in it.
 */
export function guardBusy<T>(db: StateDb, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (isBusy(error)) throw new StateDbLockedError(db.name, busyTimeoutOf(db), { cause: error });
    throw error;
  }
}

/** True for SQLite's SQLITE_BUSY and SQLITE_LOCKED errors and their extended codes. */
function isBusy(error: unknown): boolean {
  if (!(error instanceof Database.SqliteError)) return false;
  return error.code.startsWith('SQLITE_BUSY') || error.code.startsWith('SQLITE_LOCKED');
}

function busyTimeoutOf(db: StateDb): number {
  try {
    return Number(db.pragma('busy_timeout', { simple: true }));
  } catch {
    return STATE_DB_BUSY_TIMEOUT_MS;
  }
}

/** Creates the database file readable by its owner only; SQLite gives the -wal and -shm files the same mode. */
function createPrivate(path: string): void {
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch (error) {
    if (!(error instanceof Error && 'code' in error && error.code === 'EEXIST')) throw error;
  }
}
