import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { dbsClosedAfterEach, freshDbPath, indexHolds, indexMarks, partsOf, wordsText } from '../../helpers/record-db.js';
import { RecordStore, wordQueries } from '../../../src/io/storage/records.js';
import { RECORD_OVERLAP, RECORD_PART } from '../../../src/io/records/record-schema.js';
import { migrate } from '../../../src/io/storage/state-db.js';

const open = dbsClosedAfterEach('tai-recidx-');
const freshPath = (): string => freshDbPath('tai-recidx-');

describe('the records index, built after the write', () => {
  it('stores a record in parts cut at spaces without indexing it, then indexes it a part per step until it is whole', () => {
    const db = open(freshPath());
    const store = new RecordStore(db);
    const text = wordsText(3_000);
    const id = store.put(text, { label: 'flood' }, 0, 1_000);
    expect(indexMarks(db)).toEqual([0]);
    expect(indexHolds(db, 'word0')).toBe(false);
    // Found before the index has it, by the substring scan.
    expect(store.search('word2999').map((h) => h.id)).toEqual([id]);
    let steps = 0;
    while (store.indexStep()) steps++;
    const parts = partsOf(db);
    expect(steps).toBe(parts.length);
    expect(parts.length).toBeGreaterThan(20);
    // The chunks cover the record end to end, and none cuts a word.
    let at = 0;
    for (const part of parts) {
      expect(part.start).toBe(at);
      at += part.len;
      if (at < text.length) expect(text[at - 1]).toBe(' ');
    }
    expect(at).toBe(text.length);
    for (const k of [0, 1_234, 2_999]) expect(indexHolds(db, `word${k}`), `word${k}`).toBe(true);
    expect(indexHolds(db, 'flood')).toBe(true);
    const hit = store.search('word1234');
    expect(hit.map((h) => h.id)).toEqual([id]);
    expect(hit[0]?.snippet).toContain('»word1234«');
  });

  it('finds a word of several tokens and a prefix of it, and takes FTS syntax literally', () => {
    const db = open(freshPath());
    const store = new RecordStore(db);
    const id = store.put('x bigline-1-abc y', { label: 'a' }, 0);
    store.put('something else', { label: 'b' }, 0);
    store.indexAll();
    expect(wordQueries('bigline-1-ab')).toEqual([['"bigline" "1" "ab"*']]);
    expect(store.search('bigline-1-ab').map((h) => h.id)).toEqual([id]);
    expect(store.search('"quoted" AND (weird')).toEqual([]);
  });

  it('takes a record out of the index when it is deleted', () => {
    const db = open(freshPath());
    const store = new RecordStore(db);
    store.put(wordsText(500), { label: 'old' }, 0, 300);
    const young = store.put('fresh words', { label: 'young' }, 5_000);
    while (store.indexStep());
    expect(store.gc(10_000, { maxAgeMs: 6_000 })).toMatchObject({ deleted: 1 });
    expect(indexHolds(db, 'word10')).toBe(false);
    expect(partsOf(db)).toEqual([{ start: 0, len: 'fresh words'.length }]);
    db.exec("INSERT INTO record_parts_fts(record_parts_fts) VALUES ('integrity-check')");
    expect(store.search('fresh').map((h) => h.id)).toEqual([young]);
  });

  it('moves an older database to the chunked index: its old index dropped, its records indexed again and found', () => {
    const path = freshPath();
    // A database as the first version of the store left it, with a record in its index.
    const old = new Database(path);
    old.pragma('journal_mode = WAL');
    migrate(old, 'records/1', [
      'CREATE TABLE records (seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, created_at INTEGER NOT NULL, label TEXT NOT NULL, tag TEXT NOT NULL, chars INTEGER NOT NULL, text TEXT NOT NULL)',
      'CREATE INDEX records_created ON records(created_at)',
      "CREATE VIRTUAL TABLE records_fts USING fts5(text, label, content='records', content_rowid='seq')",
      'CREATE TRIGGER records_ai AFTER INSERT ON records BEGIN INSERT INTO records_fts(rowid, text, label) VALUES (new.seq, new.text, new.label); END',
      "CREATE TRIGGER records_ad AFTER DELETE ON records BEGIN INSERT INTO records_fts(records_fts, rowid, text, label) VALUES ('delete', old.seq, old.text, old.label); END",
    ]);
    old.prepare("INSERT INTO records (id, created_at, label, tag, chars, text) VALUES ('rold', 1, 'elder', 'agent-output', 23, 'an answer from long ago')").run();
    old.close();
    const db = open(path);
    const store = new RecordStore(db);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'records_fts%'").all()).toEqual([]);
    store.indexAll();
    expect(indexHolds(db, 'ago')).toBe(true);
    expect(store.search('elder').map((h) => h.id)).toEqual(['rold']);
    expect(store.read('rold')?.text).toBe('an answer from long ago');
  });
});

describe('a word that a part\'s end cuts in two', () => {
  /** A run without spaces (so the first part is cut at RECORD_PART exactly) whose word `word` starts three code points before that cut. */
  function straddling(word: string): string {
    const filler = `${'ab.'.repeat(Math.ceil(RECORD_PART / 3)).slice(0, RECORD_PART - 4)}.`;
    return `${filler}${word}${'.cd'.repeat(2_000)}`;
  }
  /** A word of `n` code points, its first three before the cut. */
  const wordOf = (n: number): string => `cut${'k'.repeat(n - 4)}e`;

  it('is found by the index and by the scan when the next part holds at most RECORD_OVERLAP of it, and not when it holds one more', () => {
    const db = open(freshPath());
    const store = new RecordStore(db);
    const fits = wordOf(3 + RECORD_OVERLAP);
    const over = wordOf(4 + RECORD_OVERLAP);
    const inside = store.put(straddling(fits), { label: 'a' }, 0);
    const outside = store.put(straddling(over), { label: 'b' }, 0);
    expect(partsOf(db)[0]).toEqual({ start: 0, len: RECORD_PART });
    // Before the index: the scan.
    expect(store.search(fits).map((h) => h.id)).toEqual([inside]);
    store.indexAll();
    expect(indexHolds(db, fits)).toBe(true);
    const hit = store.search(fits);
    expect(hit.map((h) => h.id)).toEqual([inside]);
    expect(hit[0]?.snippet).toContain(`»${fits}«`);
    // The stated bound: a word with RECORD_OVERLAP + 1 code points after the cut is in no chunk whole.
    expect(indexHolds(db, over)).toBe(false);
    expect(store.search(over)).toEqual([]);
    expect(store.read(outside, RECORD_PART - 3, over.length)?.text).toBe(over);
    expect(store.gc(10, { maxAgeMs: 1 }).deleted).toBe(2);
    db.exec("INSERT INTO record_parts_fts(record_parts_fts) VALUES ('integrity-check')");
  });

  it('is found in a database indexed before chunks held the next part\'s start: its index made again', () => {
    const path = freshPath();
    // A database as records/3 left it, its one record of two parts indexed part by part.
    const old = new Database(path);
    old.pragma('journal_mode = WAL');
    migrate(old, 'records/1', [
      'CREATE TABLE records (seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, created_at INTEGER NOT NULL, label TEXT NOT NULL, tag TEXT NOT NULL, chars INTEGER NOT NULL, writing INTEGER)',
      'CREATE INDEX records_created ON records(created_at)',
      'CREATE TABLE record_index (seq INTEGER PRIMARY KEY, indexed INTEGER NOT NULL)',
      'CREATE TABLE record_parts (id INTEGER PRIMARY KEY, seq INTEGER NOT NULL, start INTEGER NOT NULL, len INTEGER NOT NULL, text TEXT NOT NULL)',
      'CREATE INDEX record_parts_seq ON record_parts(seq, start, len)',
      "CREATE VIEW record_part_text AS SELECT p.id AS id, p.text AS text, CASE WHEN p.start = 0 THEN r.label ELSE '' END AS label FROM record_parts p JOIN records r ON r.seq = p.seq",
      "CREATE VIRTUAL TABLE record_parts_fts USING fts5(text, label, content='record_part_text', content_rowid='id', detail=none)",
      "CREATE TRIGGER records_parts_ad AFTER DELETE ON records BEGIN INSERT INTO record_parts_fts(record_parts_fts, rowid, text, label) SELECT 'delete', p.id, p.text, CASE WHEN p.start = 0 THEN old.label ELSE '' END FROM record_parts p WHERE p.seq = old.seq AND p.start < coalesce((SELECT indexed FROM record_index WHERE seq = old.seq), old.chars); DELETE FROM record_parts WHERE seq = old.seq; DELETE FROM record_index WHERE seq = old.seq; END",
    ]);
    migrate(old, 'records/2', []);
    migrate(old, 'records/3', []);
    const word = wordOf(40);
    const text = straddling(word);
    const cut = RECORD_PART;
    old.prepare("INSERT INTO records (seq, id, created_at, label, tag, chars) VALUES (1, 'rold', 1, 'elder', 'agent-output', ?)").run(text.length);
    old.prepare('INSERT INTO record_parts (id, seq, start, len, text) VALUES (1, 1, 0, ?, ?), (2, 1, ?, ?, ?)').run(cut, text.slice(0, cut), cut, text.length - cut, text.slice(cut));
    old.prepare("INSERT INTO record_parts_fts (rowid, text, label) VALUES (1, ?, 'elder'), (2, ?, '')").run(text.slice(0, cut), text.slice(cut));
    old.close();
    const db = open(path);
    const store = new RecordStore(db);
    expect(indexMarks(db)).toEqual([0]);
    store.indexAll();
    expect(indexHolds(db, word)).toBe(true);
    expect(store.search(word).map((h) => h.id)).toEqual(['rold']);
    expect(store.search('elder').map((h) => h.id)).toEqual(['rold']);
    expect(store.gc(10, { maxAgeMs: 1 }).deleted).toBe(1);
    expect(partsOf(db)).toEqual([]);
    db.exec("INSERT INTO record_parts_fts(record_parts_fts) VALUES ('integrity-check')");
  });
});

describe('a query whose words fall in different parts', () => {
  /** `n` code points of filler words, ending in a space (so a part of `n` is cut right after it). */
  const filler = (n: number, word = 'lorem'): string => `${`${word} `.repeat(Math.ceil(n / (word.length + 1)))}`.slice(0, n - 1) + ' ';

  it('finds a record when each word is in a different part, with case and accents folded as the index folds them, and needs every word', () => {
    const db = open(freshPath());
    const store = new RecordStore(db);
    const part = 2_000;
    // Non-ASCII case and accents, which the index folds and the ASCII-only scan does not.
    const text = `${filler(part)}Zèbre ${filler(part - 6)}${filler(part)}ÉCLAIR tail`;
    const id = store.put(text, { label: 'Mixed' }, 0, part);
    store.put(`${filler(part)}zebre only`, { label: 'other' }, 1, part);
    expect(partsOf(db).length).toBeGreaterThanOrEqual(4);
    store.indexAll();
    for (const query of ['zèbre éclair', 'ZEBRE eclair', 'éclair mixed', 'zèb écl']) {
      const hits = store.search(query);
      expect(hits.map((h) => h.id), query).toEqual([id]);
    }
    expect(store.search('zèbre éclair')[0]?.snippet).toMatch(/»(Zèbre|ÉCLAIR)«/);
    // Every word still counts: one absent word finds nothing.
    expect(store.search('zèbre éclair absent')).toEqual([]);
    // A record with every word in one part comes first, though older.
    const together = store.put('zebre and eclair in one part', { label: 'together' }, -1, part);
    store.indexAll();
    expect(store.search('zèbre éclair').map((h) => h.id)).toEqual([together, id]);
    expect(store.search('zèbre éclair', 1).map((h) => h.id)).toEqual([together]);
  });

  it('finds two words side by side that a part\'s end at the space between them cuts apart', () => {
    const db = open(freshPath());
    const store = new RecordStore(db);
    const part = 1_000;
    const text = `${filler(part - 6)}GRAND ÉCLAIR ${filler(500)}`;
    const id = store.put(text, { label: 'seam' }, 0, part);
    const first = db.prepare<[], { text: string }>('SELECT text FROM record_parts ORDER BY start LIMIT 1').get()?.text ?? '';
    expect(first.endsWith('GRAND ')).toBe(true);
    store.indexAll();
    expect(store.search('grand éclair').map((h) => h.id)).toEqual([id]);
    expect(store.search('Grand Éclair', 1).map((h) => h.id)).toEqual([id]);
  });
});
