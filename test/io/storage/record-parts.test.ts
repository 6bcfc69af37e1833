import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { dbsClosedAfterEach, freshDbPath, partsOf } from '../../helpers/record-db.js';
import { storeRecord } from '../../../src/io/agents/result-store.js';
import { RecordStore } from '../../../src/io/storage/records.js';
import { AgentsStore } from '../../../src/io/storage/agents-store.js';
import { TranscriptStore } from '../../../src/io/storage/transcripts.js';
import { migrate } from '../../../src/io/storage/state-db.js';

const open = dbsClosedAfterEach('tai-recparts-');
const freshPath = (): string => freshDbPath('tai-recparts-');

/** The code points [from, from + n) of `text`, as a reader of the record counts them. */
function slice(text: string, from: number, n: number): string {
  return Array.from(text).slice(from, from + n).join('');
}

describe('a record stored in parts', () => {
  it('reads any page across its parts as the whole text would, surrogate pairs counted once', () => {
    const db = open();
    const store = new RecordStore(db);
    const text = Array.from({ length: 3_000 }, (_, k) => `w${k}😀${k % 5 === 0 ? '\n' : ''}`).join('');
    const id = store.put(text, { label: 'emoji' }, 0, 1_000);
    expect(partsOf(db).length).toBeGreaterThan(10);
    const total = Array.from(text).length;
    for (const [from, n] of [[0, 10], [995, 20], [999, 1], [1_000, 2_500], [0, total], [total - 7, 100], [4_321, 6_000]] as const) {
      const page = store.read(id, from, n);
      expect(page?.text, `${from}+${n}`).toBe(slice(text, from, n));
      expect(page?.total).toBe(total);
    }
    expect(store.read(id, total, 10)?.text).toBe('');
  });

  it('reads each record from its own parts when several are stored, and an agent row reads its own record back', () => {
    const db = open();
    const store = new RecordStore(db);
    const first = store.put('alpha '.repeat(9_000), { label: 'a' }, 0);
    const second = store.put('omega '.repeat(9_000), { label: 'b' }, 0);
    expect(store.read(first, 0, 12)?.text).toBe('alpha alpha ');
    expect(store.read(second, 0, 12)?.text).toBe('omega omega ');
    expect(store.read(second, 39_996, 6)?.text).toBe('omega ');
  });

  it('is never seen half written: not read, found, indexed or counted by gc until its last part is in, and each turn writes one part', async () => {
    const db = open();
    const store = new RecordStore(db);
    const text = '\ufffd'.repeat(1 << 20);
    const seen: { parts: number; read: boolean; found: number; kept: number }[] = [];
    const place = await storeRecord(
      {
        records: store,
        stateDir: undefined,
        waitMs: 1_000,
        now: () => 5,
        // A fake scheduler: between two turns, look at what a reader sees.
        turn: async () => {
          seen.push({ parts: partsOf(db).length, read: store.read('rparts') !== undefined, found: store.search('\ufffd').length, kept: store.gc(10).kept });
          store.indexAll();
        },
      },
      text,
      'flood',
      'rparts',
    );
    expect(place).toEqual({ kind: 'record', id: 'rparts' });
    // One INSERT of at most 32,768 code points a turn, the row's completion in a turn of its own.
    expect(seen.map((s) => s.parts)).toEqual([...Array.from({ length: 32 }, (_, k) => k), 32]);
    expect(partsOf(db).every((p) => p.len <= 32_768)).toBe(true);
    expect(seen.every((s) => !s.read && s.found === 0 && s.kept === 0)).toBe(true);
    expect(store.read('rparts', 0, 1_000_000)?.text).toBe(text.slice(0, 1_000_000));
    expect(store.gc(10).kept).toBe(1);
  });

  it('waits out a lock met half way without blocking, then finishes the record', async () => {
    const path = freshPath();
    const db = open(path, { busyTimeoutMs: 20 });
    const other = open(path);
    const store = new RecordStore(db);
    const text = 'x'.repeat(5 * 32_768);
    let turns = 0;
    const sleeps: number[] = [];
    const told: number[] = [];
    let clock = 100;
    const place = await storeRecord(
      {
        records: store,
        stateDir: undefined,
        waitMs: 60_000,
        now: () => clock,
        // Another process takes the write lock after the second part.
        turn: async () => {
          if (++turns === 3) other.prepare('BEGIN IMMEDIATE').run();
        },
        // The first wait ends with the lock let go.
        sleep: async (ms) => {
          sleeps.push(ms);
          clock += ms;
          if (other.inTransaction) other.prepare('COMMIT').run();
        },
      },
      text,
      'locked',
      'rlocked',
      (since) => told.push(since),
    );
    expect(place).toEqual({ kind: 'record', id: 'rlocked' });
    expect(told).toEqual([100]);
    expect(sleeps).toEqual([1_000]);
    expect(store.read('rlocked', 0, 1_000_000)?.text).toBe(text);
  });

  it('is never named when its row was removed while it was written: the result goes elsewhere and no part is left', async () => {
    const db = open();
    const store = new RecordStore(db);
    let turns = 0;
    const place = await storeRecord(
      {
        records: store,
        stateDir: undefined,
        waitMs: 1_000,
        now: () => 5,
        turn: async () => {
          if (++turns === 2) db.prepare("DELETE FROM records WHERE id = 'rgone'").run();
        },
      },
      'y'.repeat(4 * 32_768),
      'gone',
      'rgone',
    );
    expect(place.kind).toBe('inline');
    expect(store.read('rgone')).toBeUndefined();
    expect(partsOf(db)).toEqual([]);
  });

  it('moves an older database to parts: its records read, found and collected as before, and the rows that read a record in place keep their text when it goes', () => {
    const path = freshPath();
    // A database as records/2 left it, with a transcript and an agent's row that read a record in place.
    const old = new Database(path);
    old.pragma('journal_mode = WAL');
    migrate(old, 'records/1', ['CREATE TABLE records (seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, created_at INTEGER NOT NULL, label TEXT NOT NULL, tag TEXT NOT NULL, chars INTEGER NOT NULL, text TEXT NOT NULL)', 'CREATE INDEX records_created ON records(created_at)']);
    migrate(old, 'records/2', [
      'CREATE TABLE record_index (seq INTEGER PRIMARY KEY, indexed INTEGER NOT NULL)',
      'CREATE TABLE record_chunks (id INTEGER PRIMARY KEY, seq INTEGER NOT NULL, start INTEGER NOT NULL, len INTEGER NOT NULL)',
      'CREATE INDEX record_chunks_seq ON record_chunks(seq, start)',
      "CREATE VIEW record_chunk_text AS SELECT c.id AS id, substr(r.text, c.start + 1, c.len) AS text, CASE WHEN c.start = 0 THEN r.label ELSE '' END AS label FROM record_chunks c JOIN records r ON r.seq = c.seq",
      "CREATE VIRTUAL TABLE record_chunks_fts USING fts5(text, label, content='record_chunk_text', content_rowid='id', detail=none)",
      "CREATE TRIGGER records_chunks_ad AFTER DELETE ON records BEGIN INSERT INTO record_chunks_fts(record_chunks_fts, rowid, text, label) SELECT 'delete', c.id, substr(old.text, c.start + 1, c.len), CASE WHEN c.start = 0 THEN old.label ELSE '' END FROM record_chunks c WHERE c.seq = old.seq; DELETE FROM record_chunks WHERE seq = old.seq; DELETE FROM record_index WHERE seq = old.seq; END",
    ]);
    const long = Array.from({ length: 12_000 }, (_, k) => `old${k}`).join(' ');
    old.prepare("INSERT INTO records (id, created_at, label, tag, chars, text) VALUES ('rold', 1, 'elder', 'agent-output', ?, ?)").run(long.length, long);
    old.prepare("INSERT INTO record_chunks (seq, start, len) VALUES (1, 0, 100)").run();
    old.prepare("INSERT INTO record_chunks_fts (rowid, text, label) VALUES (1, substr(?, 1, 100), 'elder')").run(long);
    old.prepare('INSERT INTO record_index (seq, indexed) VALUES (1, 100)').run();
    old.close();
    // The agents' and transcripts' tables, with their triggers as they were written for records/2.
    const db = open(path);
    const agents = new AgentsStore(db);
    const transcripts = new TranscriptStore(db);
    db.exec(`CREATE TRIGGER records_agents_bd BEFORE DELETE ON records BEGIN UPDATE agents SET text = text || substr(old.text, 1, view_head) WHERE record_id = old.id AND view_head IS NOT NULL; END`);
    db.exec(`CREATE TRIGGER records_transcripts_bd BEFORE DELETE ON records BEGIN UPDATE transcript_parts SET text = substr(text, 1, ref_at) || substr(old.text, ref_from + 1, ref_len) || substr(text, ref_at + 1), ref_at = NULL, ref_from = NULL, ref_len = NULL WHERE ref_len IS NOT NULL AND (run, id) IN (SELECT run, id FROM transcripts WHERE record_id = old.id); UPDATE transcripts SET record_id = NULL WHERE record_id = old.id; END`);
    void agents;
    // A transcript part that reads the record's code points [32,760, 32,780) between its own A and B.
    db.exec(`INSERT INTO transcripts (run, id, updated_at, record_id) VALUES ('run', 1, 0, 'rold')`);
    db.exec(`INSERT INTO transcript_parts (run, id, seq, head, text, ref_at, ref_from, ref_len) VALUES ('run', 1, 1, 0, 'AB', 1, 32760, 20)`);
    const store = new RecordStore(db);
    expect(transcripts.read('run', 1)?.parts[0]?.text).toBe(`A${long.slice(32_760, 32_780)}B`);
    expect(partsOf(db).map((p) => p.len)).toEqual([32_768, 32_768, long.length - 65_536]);
    expect(store.read('rold', 32_760, 20)?.text).toBe(long.slice(32_760, 32_780));
    expect(store.meta('rold')?.chars).toBe(long.length);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'record_chunks%'").all()).toEqual([]);
    store.indexAll();
    expect(store.search('old11999').map((h) => h.id)).toEqual(['rold']);
    expect(store.search('elder').map((h) => h.id)).toEqual(['rold']);
    for (const name of ['records_agents_bd', 'records_transcripts_bd']) {
      expect(db.prepare<[string], { sql: string }>('SELECT sql FROM sqlite_master WHERE name = ?').get(name)?.sql, name).toContain('record_parts');
    }
    expect(store.gc(10, { maxAgeMs: 1 }).deleted).toBe(1);
    expect(partsOf(db)).toEqual([]);
    expect(transcripts.read('run', 1)?.parts[0]?.text).toBe(`A${long.slice(32_760, 32_780)}B`);
    db.exec("INSERT INTO record_parts_fts(record_parts_fts) VALUES ('integrity-check')");
  });
});
