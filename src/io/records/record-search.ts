/**
 * How the record store finds whole records, as a search box does: by full text (each word's tokens, prefix
 * queries, in any part), then, while under the limit, by a scan for each word anywhere (ASCII case ignored), which
 * finds unindexed records too. Index and scan both read across a part's end, so a word cut there is found up to
 * RECORD_OVERLAP + 1 code points. The user's text is never FTS syntax.
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
 * The records whose indexed parts hold every word, each in any part: those with all in one part first, by the
 * index's rank, then the rest, newest first. Only a part holding every word is ranked (a rank rereads its text).
 */
function indexHits(db: StateDb, query: string, max: number): RecordHit[] {
  const matches: string[] = [];
  let found: Map<number, number> | undefined;
  for (const queries of wordQueries(query)) {
    const word = wordParts(db, queries);
    if (word === undefined) return [];
    matches.push(word.match);
    found = found === undefined ? word.parts : new Map([...found].filter(([seq]) => word.parts.has(seq)));
    if (found.size === 0) return [];
  }
  if (found === undefined) return [];
  const together = onePartHits(db, matches.join(' '), max);
  if (together.length >= max) return together;
  const seen = new Set(together.map((h) => h.id));
  const either = matches.map((m) => `(${m})`).join(' OR ');
  const apart = db
    .prepare<[string], MetaRow & { seq: number }>(
      'SELECT seq, id, created_at, label, tag, chars FROM records WHERE seq IN (SELECT value FROM json_each(?)) AND writing IS NULL ORDER BY created_at DESC, seq DESC',
    )
    .all(JSON.stringify([...found.keys()]))
    .filter((row) => !seen.has(row.id))
    .slice(0, max - together.length)
    .map((row) => ({ ...toMeta(row), snippet: snippetOf(db, found.get(row.seq) ?? 0, either) }));
  return [...together, ...apart];
}

/** The records with a part that holds every word of `match`, best part first, with its snippet (today's ranked search). */
function onePartHits(db: StateDb, match: string, max: number): RecordHit[] {
  return db
    .prepare<[string, number], MetaRow & { part: number; r: number }>(
      `SELECT r.id, r.created_at, r.label, r.tag, r.chars, best.part
         FROM (SELECT p.seq AS seq, f.rowid AS part, min(f.rank) AS r FROM record_parts_fts f JOIN record_parts p ON p.id = f.rowid
                WHERE record_parts_fts MATCH ? GROUP BY p.seq) best
         JOIN records r ON r.seq = best.seq WHERE r.writing IS NULL ORDER BY best.r LIMIT ?`,
    )
    .all(match, max)
    .map((row) => ({ ...toMeta(row), snippet: snippetOf(db, row.part, match) }));
}

/** The index's snippet of part `part` (its rowid) around what `match` finds there. */
function snippetOf(db: StateDb, part: number, match: string): string {
  return (
    db
      .prepare<[number, string], { snippet: string }>(
        `SELECT snippet(record_parts_fts, 0, '»', '«', '…', 12) AS snippet FROM record_parts_fts WHERE rowid = CAST(? AS INTEGER) AND record_parts_fts MATCH ?`,
      )
      .get(part, match)?.snippet ?? ''
  );
}

/** Each record whose parts hold the word (its first such part), by the first of its `queries` the index can answer; undefined when it answers none. */
function wordParts(db: StateDb, queries: readonly string[]): { match: string; parts: Map<number, number> } | undefined {
  const byRecord = db.prepare<[string], { seq: number; part: number }>(
    'SELECT p.seq AS seq, min(f.rowid) AS part FROM record_parts_fts f JOIN record_parts p ON p.id = f.rowid WHERE record_parts_fts MATCH ? GROUP BY p.seq',
  );
  for (const match of queries) {
    try {
      return { match, parts: new Map(byRecord.all(match).map((row) => [row.seq, row.part])) };
    } catch (err) {
      // A word the tokenizer splits where the query did not is a phrase, which this index cannot answer: try the finer split.
      if (!(err instanceof Error && /phrase queries are not supported/.test(err.message))) throw err;
    }
  }
  return undefined;
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
