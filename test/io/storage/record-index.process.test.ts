/** A records index a killed process left half built (the rest of the index is tested in process: record-index.test.ts). */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RecordStore } from '../../../src/io/storage/records.js';
import { openStateDb, type StateDb } from '../../../src/io/storage/state-db.js';

const opened: StateDb[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
});

function open(path: string): StateDb {
  const db = openStateDb(path);
  opened.push(db);
  return db;
}

function freshPath(): string {
  return join(mkdtempSync(join(tmpdir(), 'tai-recidx-')), 'tai.db');
}

/** The words `word0 word1 ...`, `n` of them. */
function wordsText(n: number): string {
  return Array.from({ length: n }, (_, k) => `word${k}`).join(' ');
}

function chunks(db: StateDb): { start: number; len: number }[] {
  return db.prepare<[], { start: number; len: number }>('SELECT start, len FROM record_parts ORDER BY seq, start').all();
}

/** Where each record not yet whole in the index stands. */
function marks(db: StateDb): number[] {
  return db.prepare<[], { indexed: number }>('SELECT indexed FROM record_index ORDER BY seq').all().map((r) => r.indexed);
}

function indexHolds(db: StateDb, word: string): boolean {
  return db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM record_parts_fts WHERE record_parts_fts MATCH ?').get(`"${word}"`)?.n !== 0;
}

describe('the records index, built after the write, in a process that is killed', () => {
  it('finishes on the next start an index a killed process left half built, the record whole', () => {
    const path = freshPath();
    const dist = resolve('dist/src/io/storage');
    // A process that stores a record, indexes three chunks and is killed.
    const script = `
      const { openStateDb } = await import(${JSON.stringify(join(dist, 'state-db.js'))});
      const { RecordStore } = await import(${JSON.stringify(join(dist, 'records.js'))});
      const store = new RecordStore(openStateDb(${JSON.stringify(path)}));
      store.put(${JSON.stringify(wordsText(2_000))}, { label: 'killed', id: 'rkilled' }, 1, 1000);
      for (let k = 0; k < 3; k++) store.indexStep();
      process.kill(process.pid, 'SIGKILL');`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '' } });
    expect(child.signal).toBe('SIGKILL');
    const db = open(path);
    const store = new RecordStore(db);
    expect(store.read('rkilled', 0, 100_000)?.text).toBe(wordsText(2_000));
    expect(marks(db)).toEqual([chunks(db).slice(0, 3).reduce((n, c) => n + c.len, 0)]);
    expect(indexHolds(db, 'word1999')).toBe(false);
    store.indexAll();
    expect(indexHolds(db, 'word1999')).toBe(true);
    expect(db.prepare<[], { n: number }>('SELECT count(*) AS n FROM record_index').get()?.n).toBe(0);
    db.exec("INSERT INTO record_parts_fts(record_parts_fts) VALUES ('integrity-check')");
  });
});
