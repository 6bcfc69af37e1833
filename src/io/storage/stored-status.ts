/**
 * `tai status` without a cockpit (issue 5, "also the agents' rows so `tai
 * status` survives a cockpit restart"): the agents as the state database
 * stored them, from every cockpit and in-process `tai spawn` on the machine.
 * Rows whose supervisor is gone are settled first (their reapers stopped the
 * agents), as `openAgentService` does.
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
}

/** The agents stored in the state database under `env`'s state folder; undefined when there is no database yet. */
export function storedStatus(env: NodeJS.ProcessEnv, now: number): StoredStatus | undefined {
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
    const stored = agents.list(STORED_STATUS_MAX).reverse();
    // Ids restart in every process: the newest run's rows are plain, older runs' say which run.
    const run = stored.at(-1)?.run;
    const rows = stored.map((agent) => statusRow(agent, now, run));
    return { source: 'state-db', db: path, totals: statusOf(rows, [], new Map()).totals, agents: rows };
  } finally {
    db.close();
  }
}
