/**
 * The record store of the claim check (docs/spec.md, "Claim check") on the
 * state database: a long result is written here (committed) before its id is
 * handed out; `read` pages it, `search` finds records by full text (FTS5),
 * `gc` applies the retention policy the original lacked (docs/spec.md, "Claim
 * check").
 *
 * The full-text index is built after the write, a chunk at a time
 * (`indexStep`, driven in idle turns by src/io/agents/record-indexer.ts), so
 * storing a long result never holds the loop for its tokenizing. Until a
 * record is indexed, search finds it by its substring scan. The index holds
 * no text of its own (it reads chunks of the records through a view) and no
 * positions (`detail=none`): a word of several tokens matches a chunk that
 * holds them all.
 *
 * Retention defaults: records older than RECORDS_MAX_AGE_DAYS (30) go, and
 * then the oldest go until the rest hold at most RECORDS_MAX_CHARS
 * (100 million characters, about 100 MB of text). Offsets and lengths count
 * Unicode code points, as SQLite's substr() and length() do.
 */
import type { RecordPage } from '../../core/agents/agent-service.js';
import { codePoints } from '../../core/agents/claim-check.js';
import { RECORD_PAGE_MAX, SPILL_LIMIT } from '../../core/policy.js';
import { guardBusy, migrate, type StateDb } from './state-db.js';
import { randomHex } from '../crypto-lazy.js';
import { atSpace, ftsQueries, SNIPPET_BEFORE, SNIPPET_SPAN, substringSnippet, unitsOf } from '../../core/agents/record-query.js';

export { ftsQuery, ftsQueries } from '../../core/agents/record-query.js';

/** Records older than this many days are deleted by gc. */
export const RECORDS_MAX_AGE_DAYS = 30;
/** gc keeps at most this many characters of records, newest first. */
export const RECORDS_MAX_CHARS = 100_000_000;
/** A page holds this many characters unless the reader asks otherwise. */
export const RECORD_PAGE_DEFAULT = SPILL_LIMIT;
/** A page holds at most this many characters (the control socket clamps record_read's limit to it). */
export { RECORD_PAGE_MAX };

const DAY_MS = 86_400_000;

/** What is known of a stored record besides its text. */
export interface RecordMeta {
  readonly id: string;
  readonly createdAt: number;
  /** Who produced it (the agent's label). */
  readonly label: string;
  /** What it is (`agent-output`). */
  readonly tag: string;
  readonly chars: number;
}

/** One search hit: the record and a snippet around the match. */
export interface RecordHit extends RecordMeta {
  readonly snippet: string;
}

/** What gc did. */
export interface GcReport {
  readonly deleted: number;
  readonly kept: number;
  readonly keptChars: number;
}

/** The retention policy; omitted fields take the documented defaults. */
export interface GcPolicy {
  readonly maxAgeMs?: number;
  readonly maxChars?: number;
}

const SCHEMA = [
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

/**
 * The index by chunks, built after the write: `record_index` holds the
 * records not yet whole in it and how many code points of each are; each chunk is a row of `record_chunks`
 * whose text the index reads through the view (the label only with the
 * first chunk). A record's chunks leave the index with it.
 */
const CHUNKED_INDEX = [
  'DROP TRIGGER records_ai',
  'DROP TRIGGER records_ad',
  'DROP TABLE records_fts',
  // Apart from the records, whose long text a read of a later column or an update would walk or write again.
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

/** A record just written, its text still in memory: where its index stands, in UTF-16 units and in code points. */
export interface FreshRecord {
  readonly id: string;
  readonly text: string;
  unit: number;
  cp: number;
}

/** Code points of a record indexed in one step (a chunk); a chunk ends at a space within its last quarter when there is one. */
export const INDEX_CHUNK = 32_768;

interface MetaRow {
  id: string;
  created_at: number;
  label: string;
  tag: string;
  chars: number;
}

/** The claim check's records on one state database. */
export class RecordStore {
  constructor(readonly db: StateDb) {
    migrate(db, 'records/1', SCHEMA);
    migrate(db, 'records/2', CHUNKED_INDEX);
  }

  /** Stores `text` whole and returns its new id; the row is committed when this returns. */
  put(text: string, meta: { label: string; tag?: string; id?: string }, now: number): string {
    const id = meta.id ?? newRecordId(now);
    guardBusy(this.db, () =>
      this.db
        .transaction(() => {
          const seq = this.db
            .prepare('INSERT INTO records (id, created_at, label, tag, chars, text) VALUES (?, ?, ?, ?, ?, ?)')
            .run(id, now, meta.label, meta.tag ?? 'agent-output', codePoints(text), text).lastInsertRowid;
          // Indexed after the write, in idle turns (src/io/agents/record-indexer.ts).
          this.db.prepare('INSERT INTO record_index (seq, indexed) VALUES (?, 0)').run(seq);
        })
        .immediate(),
    );
    return id;
  }

  /** A page of a record, or undefined when there is no such record. */
  read(id: string, offset: number = 0, limit: number = RECORD_PAGE_DEFAULT): RecordPage | undefined {
    const from = Math.max(0, Math.floor(offset));
    const size = Math.min(RECORD_PAGE_MAX, Math.max(1, Math.floor(limit)));
    const row = guardBusy(this.db, () =>
      this.db
        .prepare<[number, number, string], { text: string; chars: number }>(
          'SELECT substr(text, ?, ?) AS text, chars FROM records WHERE id = ?',
        )
        .get(from + 1, size, id),
    );
    if (!row) return undefined;
    const end = from + codePoints(row.text);
    return { id, offset: from, text: row.text, total: row.chars, next: end < row.chars ? end : null };
  }

  /** The metadata of a record, or undefined. */
  meta(id: string): RecordMeta | undefined {
    const row = this.db
      .prepare<[string], MetaRow>('SELECT id, created_at, label, tag, chars FROM records WHERE id = ?')
      .get(id);
    return row ? toMeta(row) : undefined;
  }

  /**
   * Records whose text or label holds every word of `query`, as a search box
   * finds them: first by full text, each word's tokens as words or a word's
   * start (FTS5 prefix queries on the indexed chunks, best chunk first), then,
   * while fewer than `limit` were found, records holding each word anywhere,
   * inside a word too (instr, ignoring ASCII case; a scan, newest first),
   * which also finds a record not yet indexed. The user's text is never FTS syntax.
   */
  search(query: string, limit: number = 20): RecordHit[] {
    const max = Math.max(1, limit);
    return guardBusy(this.db, () => {
      const hits = this.#indexHits(query, max);
      return hits.length < max ? [...hits, ...this.substringHits(query, max - hits.length, new Set(hits.map((h) => h.id)))] : hits;
    });
  }

  /**
   * Indexes the next chunk of the oldest record not yet whole in the index,
   * in one transaction (so a crash leaves it where the last step ended, and
   * the next step, in any process, goes on from there). Returns false when
   * nothing is left to index. When that record is `fresh` (its text still in
   * memory, its cursor where the index stands), the chunk is taken from it
   * instead of reading the record, and the cursor moves on.
   */
  indexStep(chunk: number = INDEX_CHUNK, fresh?: FreshRecord): boolean {
    return guardBusy(this.db, () =>
      this.db
        .transaction(() => {
          const next = this.db
            .prepare<[], { seq: number; id: string; chars: number; indexed: number; label: string }>(
              'SELECT r.seq, r.id, r.chars, i.indexed, r.label FROM record_index i JOIN records r ON r.seq = i.seq ORDER BY i.seq LIMIT 1',
            )
            .get();
          if (next === undefined) return false;
          const inMemory = fresh !== undefined && fresh.id === next.id && fresh.cp === next.indexed;
          const piece = inMemory
            ? fresh.text.slice(fresh.unit, fresh.unit + unitsOf(fresh.text, fresh.unit, chunk))
            : (this.db.prepare<[number, number, number], { text: string }>('SELECT substr(text, ?, ?) AS text FROM records WHERE seq = ?').get(next.indexed + 1, chunk, next.seq)?.text ?? '');
          if (piece === '') {
            // Its count said more than its text holds: nothing is left to index.
            this.db.prepare('DELETE FROM record_index WHERE seq = ?').run(next.seq);
            return true;
          }
          const text = next.indexed + codePoints(piece) < next.chars ? atSpace(piece) : piece;
          const len = codePoints(text);
          const id = this.db.prepare('INSERT INTO record_chunks (seq, start, len) VALUES (?, ?, ?)').run(next.seq, next.indexed, len).lastInsertRowid;
          this.db.prepare('INSERT INTO record_chunks_fts (rowid, text, label) VALUES (?, ?, ?)').run(id, text, next.indexed === 0 ? next.label : '');
          if (next.indexed + len >= next.chars) this.db.prepare('DELETE FROM record_index WHERE seq = ?').run(next.seq);
          else this.db.prepare('UPDATE record_index SET indexed = ? WHERE seq = ?').run(next.indexed + len, next.seq);
          if (inMemory) {
            fresh.unit += text.length;
            fresh.cp += len;
          }
          return true;
        })
        .immediate(),
    );
  }

  /** Indexes every record not yet whole in the index (a command that searches: no loop to keep free). */
  indexAll(): void {
    while (this.indexStep()) {
      // one chunk per transaction, as in the idle turns
    }
  }

  /** The records whose indexed chunks hold every word, best first, with a snippet of their best chunk. */
  #indexHits(query: string, max: number): RecordHit[] {
    for (const match of ftsQueries(query)) {
      try {
        const best = this.db
          .prepare<[string, number], MetaRow & { chunk: number; r: number }>(
            `SELECT r.id, r.created_at, r.label, r.tag, r.chars, best.chunk
               FROM (SELECT c.seq AS seq, f.rowid AS chunk, min(f.rank) AS r FROM record_chunks_fts f JOIN record_chunks c ON c.id = f.rowid
                      WHERE record_chunks_fts MATCH ? GROUP BY c.seq) best
               JOIN records r ON r.seq = best.seq ORDER BY best.r LIMIT ?`,
          )
          .all(match, max);
        const snippet = this.db.prepare<[number, string], { snippet: string }>(
          `SELECT snippet(record_chunks_fts, 0, '»', '«', '…', 12) AS snippet FROM record_chunks_fts WHERE rowid = CAST(? AS INTEGER) AND record_chunks_fts MATCH ?`,
        );
        return best.map((row) => ({ ...toMeta(row), snippet: snippet.get(row.chunk, match)?.snippet ?? '' }));
      } catch (err) {
        // A word the tokenizer splits where the query did not is a phrase, which this index cannot answer: try the finer split.
        if (!(err instanceof Error && /phrase queries are not supported/.test(err.message))) throw err;
      }
    }
    return [];
  }

  /** Records holding every word of `query` anywhere (ASCII case ignored), newest first, but those in `seen`. */
  private substringHits(query: string, limit: number, seen: ReadonlySet<string>): RecordHit[] {
    const words = query.toLowerCase().split(/\s+/).filter((w) => w !== '');
    const holds = words.map(() => '(instr(lower(text), ?) > 0 OR instr(lower(label), ?) > 0)').join(' AND ');
    const [first = ''] = words;
    const rows = this.db
      .prepare<unknown[], MetaRow & { around: string; at: number }>(
        `SELECT id, created_at, label, tag, chars, instr(lower(text), ?) AS at,
                substr(text, max(1, instr(lower(text), ?) - ${SNIPPET_BEFORE}), ${SNIPPET_SPAN}) AS around
           FROM records WHERE ${holds} ORDER BY created_at DESC, seq DESC LIMIT ?`,
      )
      .all(first, first, ...words.flatMap((w) => [w, w]), limit + seen.size);
    return rows
      .filter((row) => !seen.has(row.id))
      .slice(0, limit)
      .map((row) => ({ ...toMeta(row), snippet: substringSnippet(row.around, row.at, first) }));
  }

  /** Applies the retention policy: by age, then by total size, oldest first. */
  gc(now: number, policy: GcPolicy = {}): GcReport {
    const maxAgeMs = policy.maxAgeMs ?? RECORDS_MAX_AGE_DAYS * DAY_MS;
    const maxChars = policy.maxChars ?? RECORDS_MAX_CHARS;
    return guardBusy(this.db, () =>
      this.db
        .transaction(() => {
          const byAge = this.db.prepare('DELETE FROM records WHERE created_at < ?').run(now - maxAgeMs).changes;
          const rows = this.db
            .prepare<[], { seq: number; chars: number }>('SELECT seq, chars FROM records ORDER BY created_at DESC, seq DESC')
            .all();
          let kept = 0;
          let keptChars = 0;
          const drop = this.db.prepare('DELETE FROM records WHERE seq = ?');
          let bySize = 0;
          for (const row of rows) {
            if (keptChars + row.chars <= maxChars) {
              kept++;
              keptChars += row.chars;
            } else {
              drop.run(row.seq);
              bySize++;
            }
          }
          return { deleted: byAge + bySize, kept, keptChars };
        })
        .immediate(),
    );
  }
}

/** A new record id: sortable by time, unguessable enough to not collide. */
export function newRecordId(now: number): string {
  return `r${Math.max(0, Math.floor(now)).toString(36)}${randomHex(4)}`;
}

function toMeta(row: MetaRow): RecordMeta {
  return { id: row.id, createdAt: row.created_at, label: row.label, tag: row.tag, chars: row.chars };
}
