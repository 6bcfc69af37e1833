/**
 * What the state database could not take when it was written (docs/security.md,
 * "Storage faults"): a long result, or an agent's final row, kept in files of
 * the state folder's `unsaved/` (0700, files 0600) instead of lost, and
 * written into the database by the next tai process that opens it (or by the
 * supervisor's own upkeep once the database is writable again).
 *
 * Files: `<record id>.txt` holds a whole result (the file the user is told
 * of; it stays after the import, so what the message named stays true) and
 * `<record id>.json` its label and time; `agent-<run>-<id>.json` holds a row.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentsStore, StoredAgent } from './agents-store.js';
import type { RecordStore } from './records.js';

/** The folder of unsaved results and rows inside the state folder. */
export function unsavedDir(stateDir: string): string {
  return join(stateDir, 'unsaved');
}

/** Writes a whole result to `<unsaved>/<id>.txt` (0600) with its metadata; returns the text file's path. Throws the filesystem's error. */
export function keepResult(stateDir: string, id: string, text: string, meta: { label: string; createdAt: number }): string {
  const dir = unsavedDir(stateDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, `${id}.txt`);
  writeFileSync(path, text, { mode: 0o600 });
  writeFileSync(join(dir, `${id}.json`), JSON.stringify({ id, label: meta.label, createdAt: meta.createdAt }), { mode: 0o600 });
  return path;
}

/** Writes an agent's row that the database refused to `<unsaved>/agent-<run>-<id>.json` (0600). Throws the filesystem's error. */
export function keepRow(stateDir: string, row: StoredAgent): string {
  const dir = unsavedDir(stateDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, `agent-${row.run}-${row.id}.json`);
  writeFileSync(path, JSON.stringify(row), { mode: 0o600 });
  return path;
}

/** What an import wrote into the database. */
export interface ImportReport {
  readonly records: number;
  readonly rows: number;
}

/**
 * Writes the kept results (as records with the ids they were given) and then
 * the kept rows into the database, deleting each metadata file once written;
 * stops at the first storage fault (the database is still not writable) and throws it.
 */
export function importUnsaved(stateDir: string, records: RecordStore, agents: AgentsStore, now: number): ImportReport {
  const dir = unsavedDir(stateDir);
  // Asked every SLOT_RENEW_MS by a cockpit at rest, where the folder is usually missing: a failed readdirSync
  // builds an error with its stack each time, the cockpit's costliest step at rest (docs/perf-log.md, "Idle").
  if (!existsSync(dir)) return { records: 0, rows: 0 };
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json')).sort();
  } catch {
    return { records: 0, rows: 0 };
  }
  let recordsDone = 0;
  let rowsDone = 0;
  // Records first: a kept row may name one of them.
  for (const name of [...names.filter((n) => !n.startsWith('agent-')), ...names.filter((n) => n.startsWith('agent-'))]) {
    const path = join(dir, name);
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(path, 'utf8'));
    } catch {
      continue; // Half written by a process that died; the text file, if any, stays for the user.
    }
    if (name.startsWith('agent-')) {
      agents.save(parsed as StoredAgent);
      rowsDone++;
    } else {
      const meta = parsed as { id: string; label: string; createdAt: number };
      if (!records.meta(meta.id)) {
        records.put(readFileSync(join(dir, `${meta.id}.txt`), 'utf8'), { label: meta.label, id: meta.id }, Number.isFinite(meta.createdAt) ? meta.createdAt : now);
        recordsDone++;
      }
    }
    unlinkSync(path);
  }
  return { records: recordsDone, rows: rowsDone };
}
