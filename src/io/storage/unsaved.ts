/**
 * What the state database could not take (docs/security.md, "Storage faults"): a long result or a final row kept
 * in the state folder's `unsaved/` instead of lost, and written into the database by the next tai process that
 * opens it, or by the supervisor's upkeep. A result's `.txt` stays after the import, so the file its message
 * named stays true.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pidAlive, type AgentsStore, type StoredAgent } from './agents-store.js';
import type { RecordStore } from './records.js';

/** The folder of unsaved results and rows inside the state folder. */
export function unsavedDir(stateDir: string): string {
  return join(stateDir, 'unsaved');
}

/** Writes a whole result to `<unsaved>/<id>.txt` (0600) with its metadata; returns the text file's path. Throws the filesystem's error, leaving neither file. */
export function keepResult(stateDir: string, id: string, text: string, meta: { label: string; createdAt: number }): string {
  const dir = unsavedDir(stateDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, `${id}.txt`);
  writeWhole(path, text);
  try {
    writeWhole(join(dir, `${id}.json`), JSON.stringify({ id, label: meta.label, createdAt: meta.createdAt }));
  } catch (err) {
    // A text without its metadata is never imported: the message names no file that holds nothing.
    rmSync(path, { force: true });
    throw err;
  }
  return path;
}

/** Writes an agent's row that the database refused to `<unsaved>/agent-<run>-<id>.json` (0600). Throws the filesystem's error, leaving no file. */
export function keepRow(stateDir: string, row: StoredAgent): string {
  const dir = unsavedDir(stateDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, `agent-${row.run}-${row.id}.json`);
  writeWhole(path, JSON.stringify(row));
  return path;
}

/** The room a supervisor sets aside so that its final rows still fit on a full disk. */
export const ROOM_BYTES = 64 * 1024;

/** The file of run `run`'s room. */
function roomPath(stateDir: string, run: string): string {
  return join(unsavedDir(stateDir), `room-${run}`);
}

/** Sets ROOM_BYTES aside for run `run` (once); false when there is no room for it either. */
export function reserveRoom(stateDir: string, run: string): boolean {
  const path = roomPath(stateDir, run);
  if (existsSync(path)) return true;
  try {
    mkdirSync(unsavedDir(stateDir), { recursive: true, mode: 0o700 });
    writeWhole(path, ' '.repeat(ROOM_BYTES));
    return true;
  } catch {
    return false;
  }
}

/** Gives run `run`'s room back to the filesystem (a full disk, or the run's end); false when it had none. */
export function freeRoom(stateDir: string, run: string): boolean {
  try {
    unlinkSync(roomPath(stateDir, run));
    return true;
  } catch {
    return false;
  }
}

/** Writes a file whole or not at all: a full disk must not leave an empty or cut file behind. */
function writeWhole(path: string, data: string): void {
  const part = `${path}.part`;
  try {
    writeFileSync(part, data, { mode: 0o600 });
    renameSync(part, path);
  } catch (err) {
    rmSync(part, { force: true });
    throw err;
  }
}

/** What an import wrote into the database. */
export interface ImportReport {
  readonly records: number;
  readonly rows: number;
}

/**
 * Writes the kept results (as records with their given ids), then the kept rows, into the database, deleting
 * each metadata file once written; throws the first storage fault (still not writable).
 */
export function importUnsaved(stateDir: string, records: RecordStore, agents: AgentsStore, now: number): ImportReport {
  const dir = unsavedDir(stateDir);
  // Asked every SLOT_RENEW_MS by a cockpit at rest, where the folder is usually missing: a failed readdirSync
  // builds an error with its stack each time, the cockpit's costliest step at rest (docs/perf-log.md, "Idle").
  if (!existsSync(dir)) return { records: 0, rows: 0 };
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return { records: 0, rows: 0 };
  }
  sweepRooms(dir, names);
  let recordsDone = 0;
  let rowsDone = 0;
  const kept = names.filter((n) => n.endsWith('.json'));
  // Records first: a kept row may name one of them.
  for (const name of [...kept.filter((n) => !n.startsWith('agent-')), ...kept.filter((n) => n.startsWith('agent-'))]) {
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

/** Deletes the rooms of runs whose process is gone (killed before it could give its room back). */
function sweepRooms(dir: string, names: readonly string[]): void {
  for (const name of names) {
    if (!name.startsWith('room-')) continue;
    const pid = Number(name.slice(5).split('-')[0]);
    if (Number.isInteger(pid) && pid > 0 && pidAlive(pid)) continue;
    rmSync(join(dir, name), { force: true });
  }
}
