/**
 * The machine's agent cap (docs/spec.md, "Supervision", AGENTS_MAX_PARALLEL): every live agent of the user holds
 * a slot row, claimed in one IMMEDIATE transaction before it starts, so the one over the cap is refused wherever
 * it starts (docs/architecture.md, "Persistence"). A slot holds while its supervisor renews its lease; one whose
 * pid is gone or lease expired (a reused pid) is stale, deleted by the next claim.
 */
import { AgentsFullError } from '../../core/errors.js';
import { AGENTS_MAX_PARALLEL } from '../../core/policy.js';
import { pidAlive } from './agents-store.js';
import { guardBusy, migrate, type StateDb } from './state-db.js';

/** A slot holds this long without its supervisor renewing it. */
export const SLOT_LEASE_MS = 60_000;
/** A supervisor renews its slots' leases this often (a quarter of the lease: a locked database may miss some). */
export const SLOT_RENEW_MS = 15_000;

const SCHEMA = [
  `CREATE TABLE slots (
     run TEXT NOT NULL,
     slot INTEGER NOT NULL,
     pid INTEGER NOT NULL,
     label TEXT NOT NULL,
     claimed_at INTEGER NOT NULL,
     lease_until INTEGER NOT NULL,
     PRIMARY KEY (run, slot))`,
];

let instances = 0;

/** How a supervisor's slots are kept. */
export interface AgentSlotsOptions {
  /** The supervisor's run key (src/io/storage/agents-store.ts, currentRun). */
  readonly run: string;
  readonly pid?: number;
  /** Live agents on the machine at once; AGENTS_MAX_PARALLEL unless a test says otherwise. */
  readonly limit?: number;
  readonly leaseMs?: number;
  /** Whether a supervisor's pid is alive; `process.kill(pid, 0)` by default. */
  readonly isAlive?: (pid: number) => boolean;
}

/** One supervisor's slots on the machine-wide table. */
export class AgentSlots {
  readonly db: StateDb;
  readonly limit: number;
  readonly #run: string;
  readonly #pid: number;
  readonly #leaseMs: number;
  readonly #isAlive: (pid: number) => boolean;
  readonly #held = new Set<number>();
  #next = 1;
  /** The statements and transactions, made once: the cockpit renews every SLOT_RENEW_MS, and preparing costs more than running (docs/perf-log.md, "Idle"). */
  readonly #sql: ReturnType<typeof statements>;
  readonly #renew: (now: number, held: readonly number[]) => void;
  readonly #claim: (now: number, slot: number, label: string) => void;
  readonly #count: (now: number) => number;

  constructor(db: StateDb, options: AgentSlotsOptions) {
    this.db = db;
    // Per instance: two services in one process (a host's, a test's) must not take or drop each other's slots.
    this.#run = `${options.run}/${++instances}`;
    this.#pid = options.pid ?? process.pid;
    this.limit = options.limit ?? AGENTS_MAX_PARALLEL;
    this.#leaseMs = options.leaseMs ?? SLOT_LEASE_MS;
    this.#isAlive = options.isAlive ?? pidAlive;
    migrate(db, 'slots/1', SCHEMA);
    const sql = statements(db);
    this.#sql = sql;
    this.#claim = db.transaction((now: number, slot: number, label: string) => {
      const live = this.#reclaim(now);
      if (live >= this.limit) throw new AgentsFullError(live, this.limit);
      sql.insert.run(this.#run, slot, this.#pid, label, now, now + this.#leaseMs);
    }).immediate;
    this.#renew = db.transaction((now: number, held: readonly number[]) => {
      sql.renew.run(now + this.#leaseMs, this.#run);
      for (const { slot } of sql.mine.all(this.#run)) if (!held.includes(slot)) sql.drop.run(this.#run, slot);
    }).immediate;
    this.#count = db.transaction((now: number) => this.#reclaim(now)).immediate;
  }

  /** The slots this supervisor holds. */
  get held(): number {
    return this.#held.size;
  }

  /**
   * Claims a slot for an agent about to start: stale slots deleted, the rest counted and a new one inserted in one
   * IMMEDIATE transaction; throws AgentsFullError when the machine already runs `limit` agents.
   */
  claim(label: string, now: number): number {
    const slot = this.#next++;
    guardBusy(this.db, () => this.#claim(now, slot, label));
    this.#held.add(slot);
    return slot;
  }

  /** Gives a slot back when its agent has ended; a failed delete is retried by `renew` (or reclaimed when this process is gone). */
  release(slot: number): void {
    this.#held.delete(slot);
    guardBusy(this.db, () => this.#sql.drop.run(this.#run, slot));
  }

  /** Renews the leases of the slots held and deletes this run's slots no longer held (a release that failed). */
  renew(now: number): void {
    const held = [...this.#held];
    guardBusy(this.db, () => this.#renew(now, held));
  }

  /** Gives back every slot of this supervisor (it closes). */
  releaseAll(): void {
    this.#held.clear();
    guardBusy(this.db, () => this.#sql.dropRun.run(this.#run));
  }

  /** The live slots on the machine now (stale ones not counted). */
  count(now: number): number {
    return guardBusy(this.db, () => this.#count(now));
  }

  /** Deletes stale slots (inside the caller's transaction); returns how many live ones remain. */
  #reclaim(now: number): number {
    let live = 0;
    for (const row of this.#sql.all.all()) {
      // This supervisor's own slots are never stale to itself: renew fixes a lease it missed.
      const own = row.run === this.#run;
      if (!own && (row.lease_until <= now || !this.#isAlive(row.pid))) this.#sql.drop.run(row.run, row.slot);
      else live++;
    }
    return live;
  }
}

/** The slot table's statements, prepared once per supervisor. */
function statements(db: StateDb) {
  return {
    insert: db.prepare<[string, number, number, string, number, number]>(
      'INSERT INTO slots (run, slot, pid, label, claimed_at, lease_until) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    renew: db.prepare<[number, string]>('UPDATE slots SET lease_until = ? WHERE run = ?'),
    mine: db.prepare<[string], { slot: number }>('SELECT slot FROM slots WHERE run = ?'),
    all: db.prepare<[], { run: string; slot: number; pid: number; lease_until: number }>('SELECT run, slot, pid, lease_until FROM slots'),
    drop: db.prepare<[string, number]>('DELETE FROM slots WHERE run = ? AND slot = ?'),
    dropRun: db.prepare<[string]>('DELETE FROM slots WHERE run = ?'),
  };
}
