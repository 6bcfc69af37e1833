/**
 * `tai status` without a cockpit, so it survives a cockpit's restart: the agents the state database stored, from
 * every supervisor on the machine, rows of gone supervisors settled first (their reapers stopped the agents).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { statusOf, type BoardStatus } from '../../../store/status.js';
import { AgentsStore, statusRow } from './agents-store.js';
import { openStateDb, stateDir, STATE_DB_FILE } from './state-db.js';
import { RecordStore } from './records.js';
import { importUnsaved } from './unsaved.js';

/** At most this many stored agents are shown, the newest. */
export const STORED_STATUS_MAX = 50;

/** The stored agents as a status, and where they were read. */
export interface StoredStatus extends BoardStatus {
  /** Always `state-db`: these rows are stored, not live. */
  readonly source: 'state-db';
  /** The state database read. */
  readonly db: string;
  /** Each row's machine-wide id, `<supervisor pid>/<id>` (ids restart in every process), in the order of `agents`. */
  readonly keys: readonly string[];
  /** True when every run's rows are here (`tai status --all`), false for the newest run's only. */
  readonly all: boolean;
}

/** The machine-wide id of a stored agent: its supervisor's pid and its id in that run (`4242/3`). */
export function storedKey(run: string, id: number): string {
  return `${run.split('-')[0] ?? run}/${id}`;
}

/**
 * The agents stored under `env`'s state folder: the newest run's, or with `all` every run's, newest
 * STORED_STATUS_MAX; undefined when there is no database yet.
 */
export function storedStatus(env: NodeJS.ProcessEnv, now: number, all = false): StoredStatus | undefined {
  const path = join(stateDir(env), STATE_DB_FILE);
  if (!existsSync(path)) return undefined;
  const db = openStateDb(path);
  try {
    const agents = new AgentsStore(db);
    try {
      // What an earlier process could not store (src/io/storage/unsaved.ts): its rows end in their real state.
      importUnsaved(stateDir(env), new RecordStore(db), agents, now);
    } catch {
      // Still not writable: shown as stored, fixed by the next command that can write.
    }
    agents.settleDead(now);
    const listed = agents.list(STORED_STATUS_MAX).reverse();
    const newest = listed.at(-1)?.run;
    const stored = all ? listed : listed.filter((agent) => agent.run === newest);
    const rows = stored.map((agent) => statusRow(agent, now, agent.run));
    const keys = stored.map((agent) => storedKey(agent.run, agent.id));
    return { source: 'state-db', db: path, totals: statusOf(rows, [], new Map()).totals, agents: rows, keys, all };
  } finally {
    db.close();
  }
}
