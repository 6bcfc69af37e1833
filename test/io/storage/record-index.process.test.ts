/** A records index a killed process left half built (the rest of the index is tested in process: record-index.test.ts). */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { builtStoreScript } from '../../helpers/built-store.js';
import { dbsClosedAfterEach, freshDbPath, indexHolds, indexMarks, partsOf, wordsText } from '../../helpers/record-db.js';
import { RecordStore } from '../../../src/io/storage/records.js';

const open = dbsClosedAfterEach('tai-recidx-');
const freshPath = (): string => freshDbPath('tai-recidx-');

describe('the records index, built after the write, in a process that is killed', () => {
  it('finishes on the next start an index a killed process left half built, the record whole', () => {
    const path = freshPath();
    // A process that stores a record, indexes three chunks and is killed.
    const script = `${builtStoreScript(path)}
      store.put(${JSON.stringify(wordsText(2_000))}, { label: 'killed', id: 'rkilled' }, 1, 1000);
      for (let k = 0; k < 3; k++) store.indexStep();
      process.kill(process.pid, 'SIGKILL');`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '' } });
    expect(child.signal).toBe('SIGKILL');
    const db = open(path);
    const store = new RecordStore(db);
    expect(store.read('rkilled', 0, 100_000)?.text).toBe(wordsText(2_000));
    expect(indexMarks(db)).toEqual([partsOf(db).slice(0, 3).reduce((n, c) => n + c.len, 0)]);
    expect(indexHolds(db, 'word1999')).toBe(false);
    store.indexAll();
    expect(indexHolds(db, 'word1999')).toBe(true);
    expect(db.prepare<[], { n: number }>('SELECT count(*) AS n FROM record_index').get()?.n).toBe(0);
    db.exec("INSERT INTO record_parts_fts(record_parts_fts) VALUES ('integrity-check')");
  });
});
