/**
 * `src/io/records/`: the record store's SQL beside its class (src/io/storage/records.ts): tables, search, slices
 * and the claim check's view an agent's row keeps. This file: the tables and their migrations, up to records/4:
 * text in parts of at most RECORD_PART code points (written a part a turn, unseen until the last is in), each
 * indexed with the next part's first RECORD_OVERLAP code points, so a word cut by a part's end is whole in a chunk.
 */
import { migrate, type StateDb } from '../storage/state-db.js';
import { RECORD_DELETE_TRIGGER as TRANSCRIPTS_TRIGGER } from '../storage/transcripts.js';
import { RECORD_DELETE_TRIGGER as AGENTS_TRIGGER } from './agent-record-view.js';

/** Code points in a record's part (and the index's chunk): a part ends at a space within its last quarter when there is one. */
export const RECORD_PART = 32_768;

/** Code points of the next part that a part's chunk also holds, when the part ends inside a word: a word of at most RECORD_OVERLAP + 1 code points is whole in one chunk. */
export const RECORD_OVERLAP = 1_024;

/**
 * The SQL of part `p`'s indexed (and scanned) chunk: its text and, when it ends inside a word, the next part's
 * first RECORD_OVERLAP code points; a whole record's parts never change, so a delete reads what was indexed.
 * records/4's view and trigger hold this SQL as it was: a change of it needs a migration of its own.
 */
export function chunkTextSql(p: string): string {
  return `${p}.text || ${nextHeadSql(p)}`;
}

/** The SQL of the text around part `p`'s end: its last RECORD_OVERLAP code points and the next part's first (what a scan reads besides the part itself). */
export function seamTextSql(p: string): string {
  return `substr(${p}.text, -${RECORD_OVERLAP}) || ${nextHeadSql(p)}`;
}

/**
 * The SQL true when part `p` ends inside a word, where only a word can straddle its end. It reads the last byte
 * as a blob: a text's last character would be counted from its start.
 */
export function endsInWordSql(p: string): string {
  return `substr(CAST(${p}.text AS BLOB), -1) NOT IN (x'20', x'0a', x'09', x'0d')`;
}

/** The next part's first RECORD_OVERLAP code points, read only when part `p` ends inside a word (reading a part loads all of it). */
function nextHeadSql(p: string): string {
  return `CASE WHEN ${endsInWordSql(p)} THEN coalesce((SELECT substr(n.text, 1, ${RECORD_OVERLAP}) FROM record_parts n WHERE n.seq = ${p}.seq AND n.start = ${p}.start + ${p}.len), '') ELSE '' END`;
}

const RECORDS_1 = [
  `CREATE TABLE records (
     seq INTEGER PRIMARY KEY,
     id TEXT NOT NULL UNIQUE,
     created_at INTEGER NOT NULL,
     label TEXT NOT NULL,
     tag TEXT NOT NULL,
     chars INTEGER NOT NULL,
     text TEXT NOT NULL)`,
  'CREATE INDEX records_created ON records(created_at)',
  `CREATE VIRTUAL TABLE records_fts USING fts5(text, label, content='records', content_rowid='seq')`,
  `CREATE TRIGGER records_ai AFTER INSERT ON records BEGIN
     INSERT INTO records_fts(rowid, text, label) VALUES (new.seq, new.text, new.label);
   END`,
  `CREATE TRIGGER records_ad AFTER DELETE ON records BEGIN
     INSERT INTO records_fts(records_fts, rowid, text, label) VALUES ('delete', old.seq, old.text, old.label);
   END`,
];

/** The index by chunks of the whole text, built after the write (`record_index`: how far each record is indexed). */
const RECORDS_2 = [
  'DROP TRIGGER records_ai',
  'DROP TRIGGER records_ad',
  'DROP TABLE records_fts',
  'CREATE TABLE record_index (seq INTEGER PRIMARY KEY, indexed INTEGER NOT NULL)',
  'INSERT INTO record_index (seq, indexed) SELECT seq, 0 FROM records',
  `CREATE TABLE record_chunks (
     id INTEGER PRIMARY KEY,
     seq INTEGER NOT NULL,
     start INTEGER NOT NULL,
     len INTEGER NOT NULL)`,
  'CREATE INDEX record_chunks_seq ON record_chunks(seq, start)',
  `CREATE VIEW record_chunk_text AS
     SELECT c.id AS id, substr(r.text, c.start + 1, c.len) AS text, CASE WHEN c.start = 0 THEN r.label ELSE '' END AS label
       FROM record_chunks c JOIN records r ON r.seq = c.seq`,
  `CREATE VIRTUAL TABLE record_chunks_fts USING fts5(text, label, content='record_chunk_text', content_rowid='id', detail=none)`,
  `CREATE TRIGGER records_chunks_ad AFTER DELETE ON records BEGIN
     INSERT INTO record_chunks_fts(record_chunks_fts, rowid, text, label)
       SELECT 'delete', c.id, substr(old.text, c.start + 1, c.len), CASE WHEN c.start = 0 THEN old.label ELSE '' END FROM record_chunks c WHERE c.seq = old.seq;
     DELETE FROM record_chunks WHERE seq = old.seq;
     DELETE FROM record_index WHERE seq = old.seq;
   END`,
];

/**
 * The text in parts: an older record's text is cut into RECORD_PART code points (not at spaces) and indexed again.
 * Other tables' triggers that read a deleted record's text move to its parts first, or the column could not go.
 */
function records3(db: StateDb): string[] {
  const has = (name: string): boolean => db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND name = ?").get(name) !== undefined;
  return [
    'DROP TRIGGER records_chunks_ad',
    'DROP TABLE record_chunks_fts',
    'DROP VIEW record_chunk_text',
    'DROP TABLE record_chunks',
    `CREATE TABLE record_parts (
       id INTEGER PRIMARY KEY,
       seq INTEGER NOT NULL,
       start INTEGER NOT NULL,
       len INTEGER NOT NULL,
       text TEXT NOT NULL)`,
    'CREATE INDEX record_parts_seq ON record_parts(seq, start, len)',
    `WITH RECURSIVE cut(seq, start, chars) AS (
       SELECT seq, 0, length(text) FROM records WHERE length(text) > 0
       UNION ALL SELECT seq, start + ${RECORD_PART}, chars FROM cut WHERE start + ${RECORD_PART} < chars)
     INSERT INTO record_parts (seq, start, len, text)
       SELECT c.seq, c.start, min(${RECORD_PART}, c.chars - c.start), substr(r.text, c.start + 1, ${RECORD_PART}) FROM cut c JOIN records r ON r.seq = c.seq ORDER BY c.seq, c.start`,
    'UPDATE records SET chars = coalesce((SELECT sum(len) FROM record_parts p WHERE p.seq = records.seq), 0)',
    ...(has('records_transcripts_bd') ? ['DROP TRIGGER records_transcripts_bd', TRANSCRIPTS_TRIGGER] : []),
    ...(has('records_agents_bd') ? ['DROP TRIGGER records_agents_bd', AGENTS_TRIGGER] : []),
    'ALTER TABLE records DROP COLUMN text',
    'ALTER TABLE records ADD COLUMN writing INTEGER',
    'DELETE FROM record_index',
    'INSERT INTO record_index (seq, indexed) SELECT seq, 0 FROM records',
    `CREATE VIEW record_part_text AS
       SELECT p.id AS id, p.text AS text, CASE WHEN p.start = 0 THEN r.label ELSE '' END AS label
         FROM record_parts p JOIN records r ON r.seq = p.seq`,
    `CREATE VIRTUAL TABLE record_parts_fts USING fts5(text, label, content='record_part_text', content_rowid='id', detail=none)`,
    // Only the parts the index holds leave it (it holds a record's parts from its start up to record_index's mark, or all).
    `CREATE TRIGGER records_parts_ad AFTER DELETE ON records BEGIN
       INSERT INTO record_parts_fts(record_parts_fts, rowid, text, label)
         SELECT 'delete', p.id, p.text, CASE WHEN p.start = 0 THEN old.label ELSE '' END FROM record_parts p
          WHERE p.seq = old.seq AND p.start < coalesce((SELECT indexed FROM record_index WHERE seq = old.seq), old.chars);
       DELETE FROM record_parts WHERE seq = old.seq;
       DELETE FROM record_index WHERE seq = old.seq;
     END`,
  ];
}

/** Each chunk with the next part's start (`chunkTextSql`): the index is made again, and every record indexed again from its start. */
const RECORDS_4 = [
  'DROP TRIGGER records_parts_ad',
  'DROP TABLE record_parts_fts',
  'DROP VIEW record_part_text',
  `CREATE VIEW record_part_text AS
     SELECT p.id AS id, ${chunkTextSql('p')} AS text, CASE WHEN p.start = 0 THEN r.label ELSE '' END AS label
       FROM record_parts p JOIN records r ON r.seq = p.seq`,
  `CREATE VIRTUAL TABLE record_parts_fts USING fts5(text, label, content='record_part_text', content_rowid='id', detail=none)`,
  // Only the parts the index holds leave it (it holds a record's parts from its start up to record_index's mark, or all).
  `CREATE TRIGGER records_parts_ad AFTER DELETE ON records BEGIN
     INSERT INTO record_parts_fts(record_parts_fts, rowid, text, label)
       SELECT 'delete', p.id, ${chunkTextSql('p')}, CASE WHEN p.start = 0 THEN old.label ELSE '' END FROM record_parts p
        WHERE p.seq = old.seq AND p.start < coalesce((SELECT indexed FROM record_index WHERE seq = old.seq), old.chars);
     DELETE FROM record_parts WHERE seq = old.seq;
     DELETE FROM record_index WHERE seq = old.seq;
   END`,
  'DELETE FROM record_index',
  'INSERT INTO record_index (seq, indexed) SELECT seq, 0 FROM records',
];

/** Brings `db` to the record store's current tables. */
export function migrateRecords(db: StateDb): void {
  migrate(db, 'records/1', RECORDS_1);
  migrate(db, 'records/2', RECORDS_2);
  if (db.prepare("SELECT 1 FROM schema WHERE name = 'records/3'").get() === undefined) migrate(db, 'records/3', records3(db));
  migrate(db, 'records/4', RECORDS_4);
}
