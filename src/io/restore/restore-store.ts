/**
 * The folder `src/io/restore/`: a cockpit outliving itself (docs/restore.md, "What is stored"). This file: the
 * `cockpits` and `launches` tables. A deliberate end marks a cockpit `ended`; anything else leaves it `running`
 * with a gone process, restorable. A restore claims it in one immediate transaction, so one process restores it.
 */
import { guardBusy, migrate, unsynced, type StateDb } from '../storage/state-db.js';

const SCHEMA = [
  `CREATE TABLE cockpits (
     run TEXT PRIMARY KEY,
     name TEXT NOT NULL,
     machine TEXT NOT NULL,
     uid INTEGER NOT NULL,
     pid INTEGER NOT NULL,
     start TEXT,
     argv TEXT NOT NULL,
     cwd TEXT NOT NULL,
     state TEXT NOT NULL,
     claimed_by TEXT,
     started_at INTEGER NOT NULL,
     alive_at INTEGER NOT NULL,
     ended_at INTEGER)`,
  'CREATE INDEX cockpits_name ON cockpits(name, started_at)',
  `CREATE TABLE launches (
     run TEXT NOT NULL,
     id INTEGER NOT NULL,
     launch TEXT NOT NULL,
     live INTEGER NOT NULL,
     started_at INTEGER NOT NULL,
     restored_from TEXT,
     updated_at INTEGER NOT NULL,
     PRIMARY KEY (run, id))`,
];

/** The schema's migration: a database of an older tai gets these tables, and keeps every row it had. */
export const RESTORE_SCHEMA = 'restore/1';

/** A cockpit's states: running (or crashed, when its process is gone), ended on purpose, being restored, restored. */
export type CockpitState = 'running' | 'ended' | 'restoring' | 'restored';

/** One cockpit run as stored. */
export interface StoredCockpit {
  readonly run: string;
  readonly name: string;
  readonly machine: string;
  readonly uid: number;
  readonly pid: number;
  readonly start: string | null;
  /** The main program as it ran (JSON of an argv in the table). */
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly state: CockpitState;
  /** The run restoring it, while `restoring`. */
  readonly claimedBy: string | null;
  readonly startedAt: number;
  readonly aliveAt: number;
  readonly endedAt: number | null;
}

/** One agent attempt's launch row; `launch` is the JSON, read with parseLaunch. */
export interface StoredLaunch {
  readonly run: string;
  readonly id: number;
  readonly launch: string;
  readonly live: boolean;
  readonly startedAt: number;
  /** `RUN/ID` of the launch it was restored from. */
  readonly restoredFrom: string | null;
}

interface CockpitRow {
  run: string;
  name: string;
  machine: string;
  uid: number;
  pid: number;
  start: string | null;
  argv: string;
  cwd: string;
  state: string;
  claimed_by: string | null;
  started_at: number;
  alive_at: number;
  ended_at: number | null;
}

interface LaunchRow {
  run: string;
  id: number;
  launch: string;
  live: number;
  started_at: number;
  restored_from: string | null;
}

/** The cockpits and launches of every tai process of this user. */
export class RestoreStore {
  #touch: ReturnType<typeof prepareTouch> | undefined;

  constructor(readonly db: StateDb) {
    migrate(db, RESTORE_SCHEMA, SCHEMA);
  }

  /** Runs `fn` in one immediate transaction: what a claim reads and writes, no other process interleaves. */
  atomically<T>(fn: () => T): T {
    return guardBusy(this.db, () => this.db.transaction(fn).immediate());
  }

  /** Records a cockpit run as running. */
  addCockpit(c: StoredCockpit): void {
    guardBusy(this.db, () =>
      this.db
        .prepare(
          `INSERT OR REPLACE INTO cockpits (run, name, machine, uid, pid, start, argv, cwd, state, claimed_by, started_at, alive_at, ended_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(c.run, c.name, c.machine, c.uid, c.pid, c.start, JSON.stringify(c.argv), c.cwd, c.state, c.claimedBy, c.startedAt, c.aliveAt, c.endedAt),
    );
  }

  /** The cockpit runs named `name`, newest first. */
  cockpitsNamed(name: string): StoredCockpit[] {
    return this.db.prepare<[string], CockpitRow>('SELECT * FROM cockpits WHERE name = ? ORDER BY started_at DESC, rowid DESC').all(name).map(cockpitOf);
  }

  /** Every cockpit run that may be restorable (not ended or restored), newest first. */
  openCockpits(): StoredCockpit[] {
    return this.db.prepare<[], CockpitRow>("SELECT * FROM cockpits WHERE state IN ('running','restoring') ORDER BY started_at DESC, rowid DESC").all().map(cockpitOf);
  }

  /** The cockpit run `run`, or undefined. */
  cockpit(run: string): StoredCockpit | undefined {
    const row = this.db.prepare<[string], CockpitRow>('SELECT * FROM cockpits WHERE run = ?').get(run);
    return row ? cockpitOf(row) : undefined;
  }

  /** The newest cockpit run of process `pid` (a control socket's name holds its pid), or undefined. */
  runOfPid(pid: number): string | undefined {
    return this.db.prepare<[number], { run: string }>('SELECT run FROM cockpits WHERE pid = ? ORDER BY started_at DESC, rowid DESC LIMIT 1').get(pid)?.run;
  }

  /** Moves a cockpit to `state` (claimed by `by` when restoring); false when no row of that run is in one of `from`. */
  setState(run: string, state: CockpitState, now: number, from: readonly CockpitState[], by: string | null = null): boolean {
    const marks = from.map(() => '?').join(',');
    return guardBusy(
      this.db,
      () =>
        this.db
          .prepare(`UPDATE cockpits SET state = ?, claimed_by = ?, ended_at = CASE WHEN ? IN ('ended','restored') THEN ? ELSE ended_at END WHERE run = ? AND state IN (${marks})`)
          .run(state, by, state, now, run, ...from).changes === 1,
    );
  }

  /** The cockpit's last sign of life: its agents' wall clocks are counted up to it after a crash. */
  touch(run: string, now: number): void {
    // Written every few seconds while an agent runs: prepared once, and not waiting for the disk (a crash of
    // the machine ends the agents too, so only a crash of tai needs it, and the page cache keeps it then).
    this.#touch ??= prepareTouch(this.db);
    const statement = this.#touch;
    guardBusy(this.db, () => unsynced(this.db, () => statement.run(now, run)));
  }

  /** Writes an attempt's launch (inserted, or replaced while it runs). */
  saveLaunch(l: StoredLaunch, now: number): void {
    guardBusy(this.db, () =>
      this.db
        .prepare('INSERT OR REPLACE INTO launches (run, id, launch, live, started_at, restored_from, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
        .run(l.run, l.id, l.launch, l.live ? 1 : 0, l.startedAt, l.restoredFrom, now),
    );
  }

  /** One launch, or undefined. */
  launch(run: string, id: number): StoredLaunch | undefined {
    const row = this.db.prepare<[string, number], LaunchRow>('SELECT * FROM launches WHERE run = ? AND id = ?').get(run, id);
    return row ? launchOf(row) : undefined;
  }

  /** The launches of a run that were live when it ended, by panel id. */
  liveLaunches(run: string): StoredLaunch[] {
    return this.db.prepare<[string], LaunchRow>('SELECT * FROM launches WHERE run = ? AND live = 1 ORDER BY id').all(run).map(launchOf);
  }

  /** Sets a launch's live flag. */
  setLive(run: string, id: number, live: boolean, now: number): void {
    guardBusy(this.db, () => this.db.prepare('UPDATE launches SET live = ?, updated_at = ? WHERE run = ? AND id = ?').run(live ? 1 : 0, now, run, id));
  }

  /** Rewrites a launch's JSON (its session id, its clocks), keeping the rest of its row. */
  setLaunchJson(run: string, id: number, launch: string, now: number): void {
    guardBusy(this.db, () => this.db.prepare('UPDATE launches SET launch = ?, updated_at = ? WHERE run = ? AND id = ?').run(launch, now, run, id));
  }
}

function cockpitOf(row: CockpitRow): StoredCockpit {
  let argv: readonly string[] = [];
  try {
    const v: unknown = JSON.parse(row.argv);
    if (Array.isArray(v)) argv = v.map(String);
  } catch {
    // An argv that does not parse restores as no program: the cockpit's own default ($SHELL), said by the caller.
  }
  const states: readonly string[] = ['running', 'ended', 'restoring', 'restored'];
  return {
    run: row.run,
    name: row.name,
    machine: row.machine,
    uid: row.uid,
    pid: row.pid,
    start: row.start,
    argv,
    cwd: row.cwd,
    state: states.includes(row.state) ? (row.state as CockpitState) : 'ended',
    claimedBy: row.claimed_by,
    startedAt: row.started_at,
    aliveAt: row.alive_at,
    endedAt: row.ended_at,
  };
}

function launchOf(row: LaunchRow): StoredLaunch {
  return { run: row.run, id: row.id, launch: row.launch, live: row.live === 1, startedAt: row.started_at, restoredFrom: row.restored_from };
}

/** The statement that writes a cockpit's last sign of life: (alive_at, run). */
function prepareTouch(db: StateDb) {
  return db.prepare<[number, string]>('UPDATE cockpits SET alive_at = ? WHERE run = ?');
}
