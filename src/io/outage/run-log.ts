/**
 * The run log (docs/outages.md, "The run log"): every process's account of outages, probes, notifications and
 * restarts, append-only (triggers refuse UPDATE and DELETE). The outage store writes inside its own transactions,
 * others through `log`; every function takes the time it records.
 */
import type { OutageService } from '../../core/outage/classify.js';
import { guardBusy, migrate, type StateDb } from '../storage/state-db.js';

/** One row of the run log. */
export interface RunLogEntry {
  readonly id: number;
  readonly at: number;
  readonly pid: number;
  readonly kind: string;
  readonly service: OutageService | null;
  readonly outageId: number | null;
  readonly detail: string;
}

/** What to append to the run log; `pid` defaults to this process. */
export interface NewRunLogEntry {
  readonly at: number;
  readonly kind: string;
  readonly pid?: number;
  readonly service?: OutageService;
  readonly outageId?: number;
  readonly detail?: string;
}

/** Which run log rows to read; every field narrows, none means all. */
export interface RunLogFilter {
  readonly service?: OutageService;
  readonly kind?: string | readonly string[];
  readonly outageId?: number;
  readonly pid?: number;
  /** Rows at or after this time. */
  readonly since?: number;
}

/** The run log's schema: append-only, enforced by the database itself. */
const RUN_LOG_SCHEMA: readonly string[] = [
  `CREATE TABLE run_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at INTEGER NOT NULL,
    pid INTEGER NOT NULL,
    kind TEXT NOT NULL,
    service TEXT,
    outage_id INTEGER,
    detail TEXT NOT NULL DEFAULT ''
  )`,
  'CREATE INDEX run_log_outage ON run_log (outage_id)',
  `CREATE TRIGGER run_log_no_update BEFORE UPDATE ON run_log
    BEGIN SELECT RAISE(ABORT, 'the run log is append-only'); END`,
  `CREATE TRIGGER run_log_no_delete BEFORE DELETE ON run_log
    BEGIN SELECT RAISE(ABORT, 'the run log is append-only'); END`,
];

/** Databases whose run log this process has already ensured. */
const ready = new WeakSet<StateDb>();

/** Creates the run log if this database lacks it. */
export function ensureRunLog(db: StateDb): void {
  if (ready.has(db)) return;
  migrate(db, 'run-log/1', RUN_LOG_SCHEMA);
  ready.add(db);
}

/** Appends one row to the run log and returns its id. */
export function log(db: StateDb, entry: NewRunLogEntry): number {
  ensureRunLog(db);
  return guardBusy(db, () => appendLog(db, entry));
}

/** The run log rows that match `filter`, in the order they were written. */
export function readLog(db: StateDb, filter: RunLogFilter = {}): RunLogEntry[] {
  ensureRunLog(db);
  const where: string[] = [];
  const params: (string | number)[] = [];
  const narrow = (clause: string, ...values: (string | number)[]): void => {
    where.push(clause);
    params.push(...values);
  };
  if (filter.service !== undefined) narrow('service = ?', filter.service);
  if (filter.outageId !== undefined) narrow('outage_id = ?', filter.outageId);
  if (filter.pid !== undefined) narrow('pid = ?', filter.pid);
  if (filter.since !== undefined) narrow('at >= ?', filter.since);
  if (filter.kind !== undefined) {
    const kinds = typeof filter.kind === 'string' ? [filter.kind] : [...filter.kind];
    narrow(`kind IN (${kinds.map(() => '?').join(', ') || 'NULL'})`, ...kinds);
  }
  const sql = `SELECT * FROM run_log ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`} ORDER BY id`;
  return guardBusy(db, () => db.prepare<(string | number)[], RunLogRow>(sql).all(...params).map(toEntry));
}

/** Appends one row inside the caller's transaction (schema ensured, busy guarded by the caller). */
export function appendLog(db: StateDb, entry: NewRunLogEntry): number {
  const { lastInsertRowid } = db
    .prepare('INSERT INTO run_log (at, pid, kind, service, outage_id, detail) VALUES (?, ?, ?, ?, ?, ?)')
    .run(entry.at, entry.pid ?? process.pid, entry.kind, entry.service ?? null, entry.outageId ?? null, entry.detail ?? '');
  return Number(lastInsertRowid);
}

/** A run log row as SQLite returns it. */
interface RunLogRow {
  id: number;
  at: number;
  pid: number;
  kind: string;
  service: string | null;
  outage_id: number | null;
  detail: string;
}

function toEntry(row: RunLogRow): RunLogEntry {
  return {
    id: row.id,
    at: row.at,
    pid: row.pid,
    kind: row.kind,
    service: storedService(row.service),
    outageId: row.outage_id,
    detail: row.detail,
  };
}

/** A service as stored, or null for none (or one this version does not know). */
export function storedService(value: string | null): OutageService | null {
  return value === 'network' || value === 'model' ? value : null;
}
