/**
 * The folder `src/io/outage/`: a lost network or model service waited out once for the whole machine
 * (docs/spec.md, "Outages"). This file: the machine-wide outage state on the state database, where one process
 * claims each probe under a lease and one sends the give-up notification (docs/outages.md, "The model"). Every
 * function takes `now`; an outage's time scale is stored when it opens, so every process moves it alike.
 */
import type { OutageService } from '../../core/outage/classify.js';
import { isOutageStage, nextProbe, parseTimeScale, type OutageStage } from '../../core/outage/outage-schedule.js';
import { appendLog, ensureRunLog, storedService } from './run-log.js';
import { guardBusy, migrate, type StateDb } from '../storage/state-db.js';

export { log, readLog, type NewRunLogEntry, type RunLogEntry, type RunLogFilter } from './run-log.js';

/** One outage as stored. Times are epoch ms; `null` means "not yet" or "none". */
export interface Outage {
  readonly id: number;
  readonly service: OutageService;
  /** The failure that opened it. */
  readonly detail: string;
  readonly startedAt: number;
  /** The wait the pending probe ends; once closed, the wait of the last probe. */
  readonly stage: OutageStage;
  /** Probes that failed. */
  readonly attempts: number;
  /** When the pending probe is due; null once the outage is closed. */
  readonly nextProbeAt: number | null;
  readonly hourlyStartedAt: number | null;
  /** The time scale the schedule runs on (1 outside labs). */
  readonly timeScale: number;
  /** How many failures were reported into it, the opening one included. */
  readonly reports: number;
  readonly proberPid: number | null;
  readonly leaseUntil: number | null;
  readonly endedAt: number | null;
  readonly gaveUpAt: number | null;
  readonly notifiedAt: number | null;
}

/** The run log kinds this module writes; other modules add their own. */
export const OUTAGE_LOG_KINDS = [
  'outage-open', 'outage-join', 'probe-claim', 'probe-ok', 'probe-fail', 'outage-end', 'outage-give-up', 'notify',
] as const;

/** One run log kind written by this module. */
export type OutageLogKind = (typeof OUTAGE_LOG_KINDS)[number];

/** The outage table: one row per outage, at most one open per service. */
const OUTAGE_SCHEMA: readonly string[] = [
  `CREATE TABLE outage (
    id INTEGER PRIMARY KEY,
    service TEXT NOT NULL CHECK (service IN ('network', 'model')),
    detail TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    stage TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_probe_at INTEGER,
    hourly_started_at INTEGER,
    time_scale REAL NOT NULL DEFAULT 1,
    reports INTEGER NOT NULL DEFAULT 1,
    prober_pid INTEGER,
    lease_until INTEGER,
    ended_at INTEGER,
    gave_up_at INTEGER,
    notified_at INTEGER
  )`,
  'CREATE UNIQUE INDEX outage_one_open ON outage (service) WHERE ended_at IS NULL AND gave_up_at IS NULL',
];

/** Databases whose schema this process has already ensured. */
const ready = new WeakSet<StateDb>();

/** Creates the run log and outage tables if this database lacks them; every function here calls it. */
export function ensureOutageSchema(db: StateDb): void {
  if (ready.has(db)) return;
  ensureRunLog(db);
  migrate(db, 'outages/1', OUTAGE_SCHEMA);
  ready.add(db);
}

/** The time scale for labs from `TAI_OUTAGE_TIME_SCALE` (1 when unset). */
export function outageTimeScale(env: NodeJS.ProcessEnv = process.env): number {
  return parseTimeScale(env['TAI_OUTAGE_TIME_SCALE']);
}

/**
 * Reports a lost service: opens its outage, with the first probe one minute
 * (times `scale`) later, or joins the one already open; logged either way.
 */
export function reportFailure(
  db: StateDb,
  service: OutageService,
  detail: string,
  now: number,
  scale = 1,
  pid: number = process.pid,
): { readonly outage: Outage; readonly opened: boolean } {
  ensureOutageSchema(db);
  return guardBusy(db, () =>
    db
      .transaction(() => {
        const open = selectOpen(db, service);
        if (open !== undefined) {
          db.prepare('UPDATE outage SET reports = reports + 1 WHERE id = ?').run(open.id);
          appendLog(db, { at: now, pid, kind: 'outage-join', service, outageId: open.id, detail });
          return { outage: { ...open, reports: open.reports + 1 }, opened: false };
        }
        const plan = nextProbe({ startedAt: now, attempts: 0 }, now, scale);
        if (plan.kind !== 'probe') throw new Error('the outage schedule gave up before the first probe');
        const { lastInsertRowid } = db
          .prepare(
            `INSERT INTO outage (service, detail, started_at, stage, attempts, next_probe_at, time_scale)
             VALUES (?, ?, ?, ?, 0, ?, ?)`,
          )
          .run(service, detail, now, plan.stage, plan.at, scale);
        const id = Number(lastInsertRowid);
        appendLog(db, { at: now, pid, kind: 'outage-open', service, outageId: id, detail });
        return { outage: mustGet(db, id), opened: true };
      })
      .immediate(),
  );
}

/**
 * Claims the due probe of `service`'s open outage for `pid` under a `leaseMs` lease: true for exactly one
 * claimant per step; false when none is due, another holds a live lease, or no outage is open.
 */
export function claimProbe(db: StateDb, service: OutageService, pid: number, now: number, leaseMs: number): boolean {
  ensureOutageSchema(db);
  return guardBusy(db, () => {
    // A plain read first: most callers find nothing due and need no write lock.
    if (!claimable(selectOpen(db, service), now)) return false;
    return db
      .transaction(() => {
        const outage = selectOpen(db, service);
        if (outage === undefined || !claimable(outage, now)) return false;
        db.prepare('UPDATE outage SET prober_pid = ?, lease_until = ? WHERE id = ?').run(pid, now + leaseMs, outage.id);
        const takeover =
          outage.proberPid === null ? '' : `; took over from pid ${outage.proberPid}, whose lease expired`;
        appendLog(db, { at: now, pid, kind: 'probe-claim', service, outageId: outage.id, detail: `${probeName(outage)}${takeover}` });
        return true;
      })
      .immediate();
  });
}

/**
 * Records a probe's outcome and releases the lease: success ends the outage, failure counts an attempt and sets
 * the next probe from the schedule (at its own time scale) or gives up. The outage as it stands, if open.
 */
export function recordProbe(
  db: StateDb,
  service: OutageService,
  ok: boolean,
  now: number,
  pid: number = process.pid,
): Outage | undefined {
  ensureOutageSchema(db);
  return guardBusy(db, () =>
    db
      .transaction(() => {
        const outage = selectOpen(db, service);
        if (outage === undefined) return undefined;
        const entry = { at: now, pid, service, outageId: outage.id };
        const probes = outage.attempts + 1;
        const lasted = `after ${probes} probe${probes === 1 ? '' : 's'}, ${formatDuration(now - outage.startedAt)} after it began`;
        if (ok) {
          db.prepare(
            'UPDATE outage SET ended_at = ?, next_probe_at = NULL, prober_pid = NULL, lease_until = NULL WHERE id = ?',
          ).run(now, outage.id);
          appendLog(db, { ...entry, kind: 'probe-ok', detail: `${probeName(outage)} succeeded` });
          appendLog(db, { ...entry, kind: 'outage-end', detail: `ended ${lasted}` });
          return mustGet(db, outage.id);
        }
        const attempts = outage.attempts + 1;
        const plan = nextProbe({ ...outage, attempts }, now, outage.timeScale);
        if (plan.kind === 'give-up') {
          db.prepare(
            `UPDATE outage SET attempts = ?, gave_up_at = ?, next_probe_at = NULL, prober_pid = NULL, lease_until = NULL
             WHERE id = ?`,
          ).run(attempts, now, outage.id);
          appendLog(db, { ...entry, kind: 'probe-fail', detail: `${probeName(outage)} failed; the schedule gives up` });
          appendLog(db, { ...entry, kind: 'outage-give-up', detail: `gave up ${lasted}` });
          return mustGet(db, outage.id);
        }
        db.prepare(
          `UPDATE outage SET attempts = ?, stage = ?, next_probe_at = ?, hourly_started_at = ?,
             prober_pid = NULL, lease_until = NULL
           WHERE id = ?`,
        ).run(attempts, plan.stage, plan.at, plan.hourlyStartedAt ?? null, outage.id);
        const next = `probe ${attempts + 1} (${plan.stage}) at ${new Date(plan.at).toISOString()}`;
        appendLog(db, { ...entry, kind: 'probe-fail', detail: `${probeName(outage)} failed; next ${next}` });
        return mustGet(db, outage.id);
      })
      .immediate(),
  );
}

/** The open outage of `service`, if there is one. */
export function openOutage(db: StateDb, service: OutageService): Outage | undefined {
  ensureOutageSchema(db);
  return guardBusy(db, () => selectOpen(db, service));
}

/** One outage by its id, open or closed. */
export function getOutage(db: StateDb, id: number): Outage | undefined {
  ensureOutageSchema(db);
  return guardBusy(db, () => {
    const row = db.prepare<[number], OutageRow>('SELECT * FROM outage WHERE id = ?').get(id);
    return row === undefined ? undefined : toOutage(row);
  });
}

/** Every outage on the machine, oldest first, for status and the report. */
export function listOutages(db: StateDb): Outage[] {
  ensureOutageSchema(db);
  return guardBusy(db, () => db.prepare<[], OutageRow>('SELECT * FROM outage ORDER BY id').all().map(toOutage));
}

/**
 * Claims the one notification of an outage by compare-and-set on
 * `notified_at`: true for exactly one caller machine-wide, however many ask.
 */
export function claimNotification(db: StateDb, outageId: number, now: number, pid: number = process.pid): boolean {
  ensureOutageSchema(db);
  return guardBusy(db, () =>
    db
      .transaction(() => {
        const { changes } = db
          .prepare('UPDATE outage SET notified_at = ? WHERE id = ? AND notified_at IS NULL')
          .run(now, outageId);
        if (changes !== 1) return false;
        const outage = mustGet(db, outageId);
        appendLog(db, { at: now, pid, kind: 'notify', service: outage.service, outageId, detail: 'notification claimed' });
        return true;
      })
      .immediate(),
  );
}

/** An outage row as SQLite returns it. */
interface OutageRow {
  id: number;
  service: string;
  detail: string;
  started_at: number;
  stage: string;
  attempts: number;
  next_probe_at: number | null;
  hourly_started_at: number | null;
  time_scale: number;
  reports: number;
  prober_pid: number | null;
  lease_until: number | null;
  ended_at: number | null;
  gave_up_at: number | null;
  notified_at: number | null;
}

function selectOpen(db: StateDb, service: OutageService): Outage | undefined {
  const row = db
    .prepare<[string], OutageRow>('SELECT * FROM outage WHERE service = ? AND ended_at IS NULL AND gave_up_at IS NULL')
    .get(service);
  return row === undefined ? undefined : toOutage(row);
}

function mustGet(db: StateDb, id: number): Outage {
  const row = db.prepare<[number], OutageRow>('SELECT * FROM outage WHERE id = ?').get(id);
  if (row === undefined) throw new Error(`outage ${id} vanished inside its own transaction`);
  return toOutage(row);
}

/** A probe is claimable when it is due and nobody holds a live lease on it. */
function claimable(outage: Outage | undefined, now: number): boolean {
  if (outage === undefined || outage.nextProbeAt === null || now < outage.nextProbeAt) return false;
  return outage.leaseUntil === null || outage.leaseUntil <= now;
}

/** "probe 3 (ten-minutes)": the pending probe of an outage, as the log names it. */
function probeName(outage: Outage): string {
  return `probe ${outage.attempts + 1} (${outage.stage})`;
}

function toOutage(row: OutageRow): Outage {
  const service = storedService(row.service);
  if (service === null || !isOutageStage(row.stage)) {
    throw new Error(`outage ${row.id} has an unknown service "${row.service}" or stage "${row.stage}"`);
  }
  return {
    id: row.id,
    service,
    detail: row.detail,
    startedAt: row.started_at,
    stage: row.stage,
    attempts: row.attempts,
    nextProbeAt: row.next_probe_at,
    hourlyStartedAt: row.hourly_started_at,
    timeScale: row.time_scale,
    reports: row.reports,
    proberPid: row.prober_pid,
    leaseUntil: row.lease_until,
    endedAt: row.ended_at,
    gaveUpAt: row.gave_up_at,
    notifiedAt: row.notified_at,
  };
}

/** "1 h 16 min 3 s", "850 ms": a duration for a log line or a report. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  const total = Math.round(ms / 1000);
  const parts: [number, string][] = [[Math.floor(total / 3600), 'h'], [Math.floor((total % 3600) / 60), 'min'], [total % 60, 's']];
  return parts.filter(([amount]) => amount > 0).map(([amount, unit]) => `${amount} ${unit}`).join(' ') || '0 s';
}
