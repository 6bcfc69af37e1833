/**
 * How the record store (src/io/storage/records.ts) finds whole records, as a
 * search box finds them: first by full text, each word's tokens as words or
 * a word's start (FTS5 prefix queries on the indexed parts), each word in
 * any part of the record (best first), then, while fewer than the limit
 * were found, records holding each word anywhere, inside a word too (instr
 * on each part, ignoring ASCII case; a scan, newest first), which also
 * finds a record not yet indexed. The index reads a part with the next
 * part's start (`chunkTextSql`), the scan a part and then the seam around
 * its end (`seamTextSql`), so a word a part's end cuts in two is found when
 * it is at most RECORD_OVERLAP + 1 code points long (the stated bound). The user's text is never FTS syntax.
 */
import { SNIPPET_BEFORE, SNIPPET_SPAN, substringSnippet, wordQueries } from '../../core/agents/record-query.js';
import type { StateDb } from '../storage/state-db.js';
import { chunkTextSql, endsInWordSql, seamTextSql } from './record-schema.js';

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

export interface MetaRow {
  id: string;
  created_at: number;
  label: string;
  tag: string;
  chars: number;
}

export function toMeta(row: MetaRow): RecordMeta {
  return { id: row.id, createdAt: row.created_at, label: row.label, tag: row.tag, chars: row.chars };
}

/** Whole records whose text or label holds every word of `query`, at most `limit`. */
export function searchRecords(db: StateDb, query: string, limit: number): RecordHit[] {
  const max = Math.max(1, limit);
  const hits = indexHits(db, query, max);
  return hits.length < max ? [...hits, ...substringHits(db, query, max - hits.length, new Set(hits.map((h) => h.id)))] : hits;
}

/**
 * The records whose indexed parts hold every word, each word in any part,
 * best first (by the sum of each word's best part's rank), with a snippet of
 * the best part. Each word's matches are kept per record, never per part.
 */
function indexHits(db: StateDb, query: string, max: number): RecordHit[] {
  const matches: string[] = [];
  let found: Map<number, WordHit> | undefined;
  for (const queries of wordQueries(query)) {
    const word = wordHits(db, queries);
    if (word === undefined) return [];
    matches.push(`(${word.match})`);
    found = found === undefined ? word.hits : joinHits(found, word.hits);
    if (found.size === 0) return [];
  }
  if (found === undefined) return [];
  const meta = db.prepare<[number], MetaRow>('SELECT id, created_at, label, tag, chars FROM records WHERE seq = ? AND writing IS NULL');
  const snippet = db.prepare<[number, string], { snippet: string }>(
    `SELECT snippet(record_parts_fts, 0, '»', '«', '…', 12) AS snippet FROM record_parts_fts WHERE rowid = CAST(? AS INTEGER) AND record_parts_fts MATCH ?`,
  );
  const hits: RecordHit[] = [];
  for (const [seq, hit] of [...found].sort(([, a], [, b]) => a.rank - b.rank)) {
    const row = meta.get(seq);
    if (row !== undefined) hits.push({ ...toMeta(row), snippet: snippet.get(hit.part, matches.join(' OR '))?.snippet ?? '' });
    if (hits.length >= max) break;
  }
  return hits;
}

/** A record's match of the words so far: their summed rank, and its best part (the index's rowid) with that part's rank. */
interface WordHit {
  rank: number;
  part: number;
  partRank: number;
}

/** Each record whose parts hold the word, by the first of its `queries` the index can answer; undefined when it answers none. */
function wordHits(db: StateDb, queries: readonly string[]): { match: string; hits: Map<number, WordHit> } | undefined {
  const byRecord = db.prepare<[string], { seq: number; part: number; rank: number }>(
    'SELECT p.seq AS seq, f.rowid AS part, min(f.rank) AS rank FROM record_parts_fts f JOIN record_parts p ON p.id = f.rowid WHERE record_parts_fts MATCH ? GROUP BY p.seq',
  );
  for (const match of queries) {
    try {
      return { match, hits: new Map(byRecord.all(match).map((row) => [row.seq, { rank: row.rank, part: row.part, partRank: row.rank }])) };
    } catch (err) {
      // A word the tokenizer splits where the query did not is a phrase, which this index cannot answer: try the finer split.
      if (!(err instanceof Error && /phrase queries are not supported/.test(err.message))) throw err;
    }
  }
  return undefined;
}

/** The records in both: ranks summed, the better part kept. */
function joinHits(found: ReadonlyMap<number, WordHit>, word: ReadonlyMap<number, WordHit>): Map<number, WordHit> {
  const both = new Map<number, WordHit>();
  for (const [seq, hit] of found) {
    const next = word.get(seq);
    if (next === undefined) continue;
    const best = next.partRank < hit.partRank ? next : hit;
    both.set(seq, { rank: hit.rank + next.rank, part: best.part, partRank: best.partRank });
  }
  return both;
}

/** Records holding every word of `query` in a part or the label (ASCII case ignored), newest first, but those in `seen`. */
function substringHits(db: StateDb, query: string, limit: number, seen: ReadonlySet<string>): RecordHit[] {
  const words = query.toLowerCase().split(/\s+/).filter((w) => w !== '');
  const holds = words
    .map((_, k) => `(EXISTS (SELECT 1 FROM record_parts p WHERE p.seq = r.seq AND (instr(lower(p.text), @w${k}) > 0 OR (${endsInWordSql('p')} AND instr(lower(${seamTextSql('p')}), @w${k}) > 0))) OR instr(lower(r.label), @w${k}) > 0)`)
    .join(' AND ');
  const [first = ''] = words;
  const rows = db
    .prepare<Record<string, string | number>, MetaRow & { seq: number }>(
      `SELECT r.seq, r.id, r.created_at, r.label, r.tag, r.chars FROM records r
        WHERE r.writing IS NULL AND ${holds} ORDER BY r.created_at DESC, r.seq DESC LIMIT @limit`,
    )
    .all({ ...Object.fromEntries(words.map((w, k) => [`w${k}`, w])), limit: limit + seen.size });
  // The snippet comes from the first part that holds the first word (none does: only the label holds it, and the text's start is shown).
  const around = db.prepare<{ word: string; seq: number }, { around: string; at: number }>(
    `SELECT instr(lower(text), @word) AS at, substr(text, max(1, instr(lower(text), @word) - ${SNIPPET_BEFORE}), ${SNIPPET_SPAN}) AS around
       FROM (SELECT p.start AS start, ${chunkTextSql('p')} AS text FROM record_parts p WHERE p.seq = @seq) ORDER BY instr(lower(text), @word) = 0, start LIMIT 1`,
  );
  return rows
    .filter((row) => !seen.has(row.id))
    .slice(0, limit)
    .map((row) => {
      const found = around.get({ word: first, seq: row.seq });
      return { ...toMeta(row), snippet: found === undefined ? '' : substringSnippet(found.around, found.at, first) };
    });
}
