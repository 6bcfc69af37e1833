/** State databases for the records' tests: each opened in a fresh folder and closed after the test. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { openStateDb, type StateDb } from '../../src/io/storage/state-db.js';

/** A path for a new database, in a folder of its own named `prefix`. */
export function freshDbPath(prefix: string): string {
  return join(mkdtempSync(join(tmpdir(), prefix)), 'tai.db');
}

/** Opens databases (a fresh one by default) that are closed after each test of the calling file. */
export function dbsClosedAfterEach(prefix: string): (path?: string, options?: Parameters<typeof openStateDb>[1]) => StateDb {
  const opened: StateDb[] = [];
  afterEach(() => {
    for (const db of opened.splice(0)) db.close();
  });
  return (path = freshDbPath(prefix), options) => {
    const db = openStateDb(path, options);
    opened.push(db);
    return db;
  };
}

/** The words `word0 word1 ...`, `n` of them. */
export function wordsText(n: number): string {
  return Array.from({ length: n }, (_, k) => `word${k}`).join(' ');
}

/** Each stored part of every record, in order. */
export function partsOf(db: StateDb): { start: number; len: number }[] {
  return db.prepare<[], { start: number; len: number }>('SELECT start, len FROM record_parts ORDER BY seq, start').all();
}

/** Where each record not yet whole in the index stands. */
export function indexMarks(db: StateDb): number[] {
  return db.prepare<[], { indexed: number }>('SELECT indexed FROM record_index ORDER BY seq').all().map((r) => r.indexed);
}

/** Whether the search index holds `word`. */
export function indexHolds(db: StateDb, word: string): boolean {
  return db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM record_parts_fts WHERE record_parts_fts MATCH ?').get(`"${word}"`)?.n !== 0;
}
