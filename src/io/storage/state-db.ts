/**
 * The folder `src/io/storage/`: what tai keeps on disk. This file: the per-user SQLite database every tai process
 * shares (docs/architecture.md, "Persistence"). WAL gives all the same view with atomic transactions;
 * `synchronous=FULL` makes a committed flag (a claimed probe, a sent notification) survive a crash. Each store
 * owns its tables and makes them through `migrate`.
 */
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { foreignStateReason, stateDir } from './state-dir.js';

export { stateDir } from './state-dir.js';

/** An open state database. */
export type StateDb = Database.Database;

/** A writer waits this long for another process's transaction before giving up. */
export const STATE_DB_BUSY_TIMEOUT_MS = 5_000;

/**
 * How long, in all, a write to a locked database is retried without blocking before tai says so and keeps the
 * rest in a file (src/io/agents/result-store.ts). `TAI_STATE_DB_WAIT_MS` sets it.
 */
export const STATE_DB_WAIT_MS = 60_000;

/** The total wait for a locked database: `TAI_STATE_DB_WAIT_MS` when it is a positive number, else STATE_DB_WAIT_MS. */
export function stateDbWaitMs(env: NodeJS.ProcessEnv = process.env): number {
  const ms = Number(env['TAI_STATE_DB_WAIT_MS']);
  return Number.isFinite(ms) && ms > 0 ? ms : STATE_DB_WAIT_MS;
}

/**
 * What SQLite truncates the log to when a checkpoint has reset it, so a burst (or a reader on an old snapshot)
 * does not leave its high-water mark on disk.
 */
export const WAL_KEEP_BYTES = 1_048_576;
/**
 * The log's size at which a commit checkpoints by itself, on the loop: a backstop for writers that do not pace
 * their checkpoints. The service's writers call `checkpointSoon`, so no hot commit pays a checkpoint.
 */
export const WAL_CHECKPOINT_PAGES = 1024;

/**
 * Each connection's page cache, in KiB, below SQLite's default: a server holds two connections for life and each
 * cache fills as the database grows; what it reads was mostly just written or is in the file cache.
 */
export const STATE_DB_CACHE_KIB = 512;
/** Bytes a paced writer writes before its checkpoint (a small one: a turn of its own, not a frame). */
export const WAL_PACED_BYTES = 262_144;

/** The database's file name inside the state folder. */
export const STATE_DB_FILE = 'tai.db';

/** A fault of the state database, with a message that names the file and says what to do (docs/security.md, "Storage faults"). */
export class StateDbError extends Error {
  constructor(
    /** The database file. */
    readonly path: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Refusal to go on because another process has held the database's write lock past the busy timeout. */
export class StateDbLockedError extends StateDbError {
  override readonly name = 'StateDbLockedError';

  constructor(path: string, waitedMs: number, options?: { cause?: unknown }) {
    super(
      path,
      `the state database ${path} is locked: another process has held it for more than ${waitedMs} ms. ` +
        `Wait for that process to finish, or find it with \`fuser ${path}\` and stop it, then run the command again.`,
      options,
    );
  }
}

/** Refusal to write because the filesystem of the database is full (SQLITE_FULL, ENOSPC). */
export class StateDbFullError extends StateDbError {
  override readonly name = 'StateDbFullError';

  constructor(path: string, detail: string, options?: { cause?: unknown }) {
    super(path, `the state database ${path} cannot be written: its filesystem is full (${detail}). Free space there, then run the command again.`, options);
  }
}

/** Refusal to use a file that is not a database or is damaged (SQLITE_NOTADB, SQLITE_CORRUPT). */
export class StateDbCorruptError extends StateDbError {
  override readonly name = 'StateDbCorruptError';

  constructor(path: string, detail: string, options?: { cause?: unknown }) {
    super(
      path,
      `the state database ${path} is damaged or not a database (${detail}). ` +
        `Run \`tai doctor --reset-db\` to move it aside (it is kept as ${path}.corrupt-<time>) and start a fresh one, or restore it from a backup.`,
      options,
    );
  }
}

/** Refusal to use a database that cannot be read or written (SQLITE_IOERR, READONLY, CANTOPEN, PERM). */
export class StateDbIoError extends StateDbError {
  override readonly name = 'StateDbIoError';

  constructor(path: string, detail: string, options?: { cause?: unknown }) {
    super(path, `the state database ${path} cannot be used (${detail}). Check that its folder is on a local, writable filesystem with space, then run the command again.`, options);
  }
}

/** Refusal to use a database whose folder cannot hold a WAL (a network filesystem). */
export class StateDbWalError extends StateDbError {
  override readonly name = 'StateDbWalError';

  constructor(path: string, mode: string) {
    super(
      path,
      `the state database ${path} could not switch to WAL (journal mode stayed "${mode}"); ` +
        'put it on a local filesystem (set XDG_STATE_HOME to a local folder), since WAL needs every process on one machine.',
    );
  }
}

/** Refusal to use a state folder or database of another user, or one others can write (docs/security.md). */
export class StateDbForeignError extends StateDbError {
  override readonly name = 'StateDbForeignError';
}

/** How to open the state database; every field has the machine's default. */
export interface OpenStateDbOptions {
  /** How long a writer waits for another process's lock (tests shorten it). */
  readonly busyTimeoutMs?: number;
}

/**
 * Opens (creating if needed) the state database at `path` in a folder made 0700 and a file made 0600, with WAL,
 * `synchronous=FULL` and a busy timeout.
 */
export function openStateDb(path: string = join(stateDir(), STATE_DB_FILE), options: OpenStateDbOptions = {}): StateDb {
  const busyTimeoutMs = options.busyTimeoutMs ?? STATE_DB_BUSY_TIMEOUT_MS;
  const refused = foreignStateReason(dirname(path), 'folder') ?? foreignStateReason(path, 'database');
  if (refused !== undefined) throw new StateDbForeignError(path, refused);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  createPrivate(path);
  let db: StateDb;
  try {
    db = new Database(path, { timeout: busyTimeoutMs });
  } catch (error) {
    throw faultOf(error, path, busyTimeoutMs) ?? error;
  }
  try {
    guardBusy(db, () => {
      db.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
      // Before the first table only (a no-op on an older file): `tai record gc` then gives freed pages back cheaply (state-gc.ts).
      db.pragma('auto_vacuum = INCREMENTAL');
      const mode = db.pragma('journal_mode = WAL', { simple: true });
      if (String(mode).toLowerCase() !== 'wal') throw new StateDbWalError(path, String(mode));
      db.pragma('synchronous = FULL');
      db.pragma(`journal_size_limit = ${WAL_KEEP_BYTES}`);
      db.pragma(`wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`);
      db.pragma(`cache_size = -${STATE_DB_CACHE_KIB}`);
    });
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * Applies a named migration once per database: its statements and its `schema` row in one transaction, so two
 * processes opening a new database apply it once; true if it ran now. Never edit one that shipped.
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
 * Checkpoints the write-ahead log and truncates it, only when no other process is in the way (it never waits):
 * for a writer with nothing left to write. True when the log was truncated.
 */
export function checkpointAtRest(db: StateDb): boolean {
  try {
    return withBusyTimeout(db, 0, () => {
      const [row] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
      return row?.busy === 0;
    });
  } catch {
    return false; // busy, locked or closed: the next rest tries again
  }
}

/** Bytes written by paced writers since each database's last paced checkpoint, and its armed turn. */
const paced = new WeakMap<StateDb, { bytes: number; turn?: NodeJS.Immediate }>();

/**
 * Counts `bytes` committed to `db`; past WAL_PACED_BYTES a passive checkpoint runs in a turn of its own (never in
 * a commit, never waiting), so the log stays bounded without the automatic checkpoint's long commit.
 */
export function checkpointSoon(db: StateDb, bytes: number): void {
  let state = paced.get(db);
  if (state === undefined) {
    state = { bytes: 0 };
    paced.set(db, state);
  }
  state.bytes += Math.max(0, bytes);
  if (state.bytes < WAL_PACED_BYTES || state.turn !== undefined) return;
  const s = state;
  s.turn = setImmediate(() => {
    s.turn = undefined;
    s.bytes = 0;
    if (!db.open) return;
    try {
      withBusyTimeout(db, 0, () => db.pragma('wal_checkpoint(PASSIVE)'));
    } catch {
      // Busy, locked or closed: the next paced write, the rest or the backstop checkpoints.
    }
  });
  s.turn.unref();
}

/** A connection's `synchronous` statements, prepared once: a transcript's slice and the restore touch change it each time. */
interface SyncStatements {
  readonly level: Database.Statement;
  readonly normal: Database.Statement;
  readonly back: Map<number, Database.Statement>;
}

const syncStatements = new WeakMap<StateDb, SyncStatements>();

function syncOf(db: StateDb): SyncStatements {
  let made = syncStatements.get(db);
  if (made === undefined) {
    made = { level: db.prepare('PRAGMA synchronous').pluck(), normal: db.prepare('PRAGMA synchronous = NORMAL'), back: new Map() };
    syncStatements.set(db, made);
  }
  return made;
}

/** Runs `fn` with the connection's commits not waiting for the disk (`synchronous=NORMAL`): the next synced commit or checkpoint syncs them; after a crash of the machine (not of tai) they may be gone, never half there. */
export function unsynced<T>(db: StateDb, fn: () => T): T {
  // Inside a transaction the level cannot change, and its commit syncs once anyway.
  if (db.inTransaction) return fn();
  const sync = syncOf(db);
  const saved = Number(sync.level.get());
  sync.normal.run();
  try {
    return fn();
  } finally {
    let back = sync.back.get(saved);
    if (back === undefined) sync.back.set(saved, (back = db.prepare(`PRAGMA synchronous = ${saved}`)));
    back.run();
  }
}

/**
 * Runs `fn` against `db`, turning SQLite's faults (busy, full, damaged, unreadable) into a StateDbError that
 * names the file and says what to do; every store wraps its work in it.
 */
export function guardBusy<T>(db: StateDb, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    throw faultOf(error, db.name, undefined, db) ?? error;
  }
}

/** Runs `fn` with the database's busy timeout set to `ms` (a retry that must not block the loop long), then restores it. */
export function withBusyTimeout<T>(db: StateDb, ms: number, fn: () => T): T {
  const saved = busyTimeoutOf(db);
  db.pragma(`busy_timeout = ${Math.max(0, Math.floor(ms))}`);
  try {
    return fn();
  } finally {
    db.pragma(`busy_timeout = ${saved}`);
  }
}

/** The one classifier of storage faults: SQLite's (and the filesystem's) errors as a StateDbError, or undefined for any other error. */
export function faultOf(error: unknown, path: string, waitedMs?: number, db?: StateDb): StateDbError | undefined {
  if (error instanceof StateDbError) return error;
  const code = error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : '';
  const detail = `${code}: ${error instanceof Error ? error.message : String(error)}`;
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new StateDbLockedError(path, waitedMs ?? (db ? busyTimeoutOf(db) : STATE_DB_BUSY_TIMEOUT_MS), { cause: error });
  }
  if (code.startsWith('SQLITE_FULL') || code === 'ENOSPC' || code === 'EDQUOT') return new StateDbFullError(path, detail, { cause: error });
  if (code.startsWith('SQLITE_NOTADB') || code.startsWith('SQLITE_CORRUPT')) return new StateDbCorruptError(path, detail, { cause: error });
  if (/^SQLITE_(IOERR|READONLY|CANTOPEN|PERM|AUTH)/.test(code) || /^E(ACCES|PERM|ROFS|IO)$/.test(code)) return new StateDbIoError(path, detail, { cause: error });
  return undefined;
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
