import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RecordIndexer } from '../../../src/io/agents/record-indexer.js';
import { RecordStore } from '../../../src/io/storage/records.js';
import { openStateDb, type StateDb } from '../../../src/io/storage/state-db.js';
import { until } from '../../helpers/until.js';

let db: StateDb | undefined;
afterEach(() => db?.close());

function unindexed(d: StateDb): number {
  return d.prepare<[], { n: number }>('SELECT count(*) AS n FROM record_index').get()?.n ?? -1;
}

describe('the record indexer', () => {
  it('indexes a stored record in later turns of the loop, one part a turn, until it is whole', async () => {
    db = openStateDb(join(mkdtempSync(join(tmpdir(), 'tai-indexer-')), 'tai.db'));
    const store = new RecordStore(db);
    const indexer = new RecordIndexer(store);
    store.put(Array.from({ length: 40_000 }, (_, k) => `w${k}`).join(' '), { label: 'long' }, 0, 10_000);
    indexer.poke();
    // Nothing is indexed in the turn that stored it.
    expect(unindexed(db)).toBe(1);
    let turns = 0;
    const counting = setInterval(() => turns++, 0);
    await until(() => unindexed(db as StateDb) === 0);
    clearInterval(counting);
    const chunks = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM record_parts').get()?.n ?? 0;
    expect(chunks).toBeGreaterThan(3);
    // The loop turned between the parts (timers ran while it indexed).
    expect(turns).toBeGreaterThan(0);
    expect(store.search('w39999')[0]?.snippet).toContain('»w39999«');
    indexer.stop();
  });

  it('stops between parts and leaves the rest to the next start', async () => {
    db = openStateDb(join(mkdtempSync(join(tmpdir(), 'tai-indexer-')), 'tai.db'));
    const store = new RecordStore(db);
    store.put(Array.from({ length: 40_000 }, (_, k) => `w${k}`).join(' '), { label: 'long' }, 0, 10_000);
    const first = new RecordIndexer(store);
    first.poke();
    first.stop();
    await new Promise<void>((r) => setImmediate(r));
    expect(unindexed(db)).toBe(1);
    const next = new RecordIndexer(store);
    next.poke();
    await until(() => unindexed(db as StateDb) === 0);
    next.stop();
  });
});
