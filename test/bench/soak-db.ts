/**
 * The soak's look at the state database (day-soak.ts), read-only beside the
 * running cockpit: its bytes with the write-ahead log, what it holds (the
 * transcripts' text, the records' text), how much the agents streamed into
 * transcripts (held, read from records, or cut by the cap), and the
 * transcript rows written.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

/** The database at one moment. */
export interface DbLook {
  /** The file and its write-ahead log, bytes. */
  readonly fileBytes: number;
  readonly walBytes: number;
  /** Bytes of text the transcripts' parts hold themselves. */
  readonly transcripts: number;
  /** Characters of transcripts read from their records (held once). */
  readonly referenced: number;
  /** Bytes cut by the transcripts' cap. */
  readonly cut: number;
  /** Characters of records. */
  readonly records: number;
  readonly agents: number;
  /** Transcript rows written so far (each transcript's last seq), and rows there now. */
  readonly rowsWritten: number;
  readonly rows: number;
}

const size = (path: string): number => (existsSync(path) ? statSync(path).size : 0);

/** Bytes of the database with its write-ahead log. */
export function dbBytes(state: string): number {
  return size(join(state, 'tai', 'tai.db')) + size(join(state, 'tai', 'tai.db-wal'));
}

/** What the database holds now (zeros before its tables exist). */
export function lookAt(state: string): DbLook {
  const path = join(state, 'tai', 'tai.db');
  const look = { fileBytes: size(path), walBytes: size(`${path}-wal`), transcripts: 0, referenced: 0, cut: 0, records: 0, agents: 0, rowsWritten: 0, rows: 0 };
  if (!existsSync(path)) return look;
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const one = (sql: string): number => Number((db.prepare(sql).get() as { n: number | null } | undefined)?.n ?? 0);
    const has = (table: string): boolean => db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !== undefined;
    const refs = has('transcript_parts') && (db.prepare('PRAGMA table_info(transcript_parts)').all() as { name: string }[]).some((c) => c.name === 'ref_len');
    return db.transaction(() => ({
      ...look,
      transcripts: has('transcript_parts') ? one('SELECT SUM(LENGTH(CAST(text AS BLOB))) AS n FROM transcript_parts') : 0,
      referenced: refs ? one('SELECT SUM(ref_len) AS n FROM transcript_parts') : 0,
      cut: has('transcripts') ? one('SELECT SUM(cut_bytes) AS n FROM transcripts') : 0,
      records: has('records') ? one('SELECT SUM(chars) AS n FROM records') : 0,
      agents: has('agents') ? one('SELECT COUNT(*) AS n FROM agents') : 0,
      rowsWritten: has('transcript_parts') ? one('SELECT SUM(m) AS n FROM (SELECT MAX(seq) AS m FROM transcript_parts GROUP BY run, id)') : 0,
      rows: has('transcript_parts') ? one('SELECT COUNT(*) AS n FROM transcript_parts') : 0,
    }))();
  } catch {
    return look; // busy beside the cockpit: this minute reads its size only
  } finally {
    db.close();
  }
}

/** What it holds: the transcripts' own text and the records'. */
export const heldBytes = (l: DbLook): number => l.transcripts + l.records;

/** What the agents streamed into their transcripts so far: held, read from a record, or cut. */
export const streamedBytes = (l: DbLook): number => l.transcripts + l.referenced + l.cut;

/** Bytes of the pages of the transcript rows' table and its key's index, per row (SQLite's dbstat). */
export function bytesPerRow(state: string): { rows: number; bytes: number } {
  const db = new Database(join(state, 'tai', 'tai.db'), { readonly: true, fileMustExist: true });
  try {
    const rows = Number((db.prepare('SELECT COUNT(*) AS n FROM transcript_parts').get() as { n: number }).n);
    const pages = Number((db.prepare("SELECT SUM(pgsize) AS n FROM dbstat WHERE name IN ('transcript_parts', 'sqlite_autoindex_transcript_parts_1')").get() as { n: number | null }).n ?? 0);
    return { rows, bytes: rows > 0 ? pages / rows : 0 };
  } catch {
    return { rows: 0, bytes: 0 };
  } finally {
    db.close();
  }
}
