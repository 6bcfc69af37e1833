/**
 * Agents' transcripts on the state database for `tai logs` (docs/agents.md, "An agent's transcript"), written by
 * the supervisor per flush so any terminal can read them while the agent runs and after its cockpit is gone; at
 * most TRANSCRIPT_MAX_BYTES each, head and tail (src/core/agents/transcript-cap.ts).
 */
import { place, type CapState } from '../../core/agents/transcript-cap.js';
import { checkpointAtRest, guardBusy, migrate, type StateDb } from './state-db.js';
import { recordSliceSql } from '../records/record-slice.js';

const SCHEMA = [
  `CREATE TABLE transcripts (
     run TEXT NOT NULL,
     id INTEGER NOT NULL,
     cut_bytes INTEGER NOT NULL DEFAULT 0,
     ended INTEGER NOT NULL DEFAULT 0,
     updated_at INTEGER NOT NULL,
     PRIMARY KEY (run, id))`,
  `CREATE TABLE transcript_parts (
     run TEXT NOT NULL,
     id INTEGER NOT NULL,
     seq INTEGER NOT NULL,
     head INTEGER NOT NULL,
     text TEXT NOT NULL,
     PRIMARY KEY (run, id, seq))`,
];

/**
 * A part repeating its agent's result reads that stretch from the record instead of holding it again: record
 * code points [ref_from, ref_from + ref_len) stand at code point ref_at of the part's text. Before a record is
 * deleted, a trigger gives the parts that read it their text back.
 */
const REFERENCES = [
  'ALTER TABLE transcript_parts ADD COLUMN ref_at INTEGER',
  'ALTER TABLE transcript_parts ADD COLUMN ref_from INTEGER',
  'ALTER TABLE transcript_parts ADD COLUMN ref_len INTEGER',
  'ALTER TABLE transcripts ADD COLUMN record_id TEXT',
  'CREATE INDEX transcripts_record ON transcripts(record_id)',
];

export const RECORD_DELETE_TRIGGER = `CREATE TRIGGER IF NOT EXISTS records_transcripts_bd BEFORE DELETE ON records BEGIN
     UPDATE transcript_parts SET text = substr(text, 1, ref_at) || ${recordSliceSql('old.seq', 'ref_from', 'ref_len')} || substr(text, ref_at + 1), ref_at = NULL, ref_from = NULL, ref_len = NULL
      WHERE ref_len IS NOT NULL AND (run, id) IN (SELECT run, id FROM transcripts WHERE record_id = old.id);
     UPDATE transcripts SET record_id = NULL WHERE record_id = old.id;
   END`;

/** The part `seq` has the record's code points [from, from + len) at its own code point `at`. */
export interface PartReference {
  readonly seq: number;
  readonly at: number;
  readonly from: number;
  readonly len: number;
}

/** One stored piece of a transcript. */
export interface TranscriptPart {
  readonly seq: number;
  /** In the head (kept whole) rather than the tail. */
  readonly head: boolean;
  readonly text: string;
}

/** A transcript as read: its parts after a seq, what was cut, whether its footer is in. */
export interface StoredTranscript {
  readonly parts: readonly TranscriptPart[];
  readonly cutBytes: number;
  readonly ended: boolean;
}

/** The transcripts of every tai process on the machine. */
export class TranscriptStore {
  constructor(readonly db: StateDb) {
    migrate(db, 'transcripts/1', SCHEMA);
    migrate(db, 'transcripts/2', REFERENCES);
  }

  /** Appends `text` to the transcript of (`run`, `id`) under its cap; `ended` marks the footer written. Returns the parts inserted, in order. */
  append(run: string, id: number, cap: CapState, text: string, ended: boolean, now: number): readonly { readonly seq: number; readonly text: string }[] {
    return guardBusy(this.db, () =>
      this.db
        .transaction(() => {
          // The plan changes `cap` only once the write is certain: work on a copy.
          const next: CapState = { ...cap, tail: [...cap.tail] };
          const plan = place(next, text);
          const insert = this.db.prepare('INSERT INTO transcript_parts (run, id, seq, head, text) VALUES (?, ?, ?, ?, ?)');
          for (const part of plan.insert) insert.run(run, id, part.seq, part.head ? 1 : 0, part.text);
          const drop = this.db.prepare('DELETE FROM transcript_parts WHERE run = ? AND id = ? AND seq = ?');
          for (const seq of plan.drop) drop.run(run, id, seq);
          this.db
            .prepare(
              `INSERT INTO transcripts (run, id, cut_bytes, ended, updated_at) VALUES (?, ?, ?, ?, ?)
               ON CONFLICT (run, id) DO UPDATE SET cut_bytes = excluded.cut_bytes, ended = MAX(ended, excluded.ended), updated_at = excluded.updated_at`,
            )
            .run(run, id, next.cut, ended ? 1 : 0, now);
          Object.assign(cap, next);
          return plan.insert;
        })
        .immediate(),
    );
  }

  /**
   * Makes the parts in `refs` read record `recordId` instead of their text, each only where its text is exactly
   * the record's; returns how many. A follower sees no change: the parts keep their seqs and read the same.
   */
  reference(run: string, id: number, recordId: string, refs: readonly PartReference[]): number {
    if (refs.length === 0) return 0;
    return guardBusy(this.db, () =>
      this.db
        .transaction(() => {
          if (this.db.prepare('SELECT 1 FROM records WHERE id = ?').get(recordId) === undefined) return 0;
          this.db.exec(RECORD_DELETE_TRIGGER);
          const find = this.db.prepare<PartReference & { run: string; id: number; recordId: string }, { rowid: number; head: number; text: string }>(
            `SELECT rowid, head, text FROM transcript_parts
              WHERE run = @run AND id = @id AND seq = @seq AND ref_len IS NULL
                AND substr(text, @at + 1, @len) = (SELECT ${recordSliceSql('r.seq', '@from', '@len')} FROM records r WHERE r.id = @recordId)`,
          );
          // Deleted and inserted again under its rowid, not updated: a row that shrinks in place leaves its page mostly empty, a delete lets SQLite merge it with its neighbours.
          const drop = this.db.prepare('DELETE FROM transcript_parts WHERE rowid = ?');
          const put = this.db.prepare(
            `INSERT INTO transcript_parts (rowid, run, id, seq, head, text, ref_at, ref_from, ref_len)
             VALUES (@rowid, @run, @id, @seq, @head, substr(@text, 1, @at) || substr(@text, @at + @len + 1), @at, @from, @len)`,
          );
          let made = 0;
          for (const ref of refs) {
            const part = find.get({ run, id, seq: ref.seq, at: ref.at, from: ref.from, len: ref.len, recordId });
            if (part === undefined) continue;
            drop.run(part.rowid);
            made += put.run({ rowid: part.rowid, run, id, seq: ref.seq, head: part.head, text: part.text, at: ref.at, from: ref.from, len: ref.len }).changes;
          }
          if (made > 0) this.db.prepare('UPDATE transcripts SET record_id = ? WHERE run = ? AND id = ?').run(recordId, run, id);
          return made;
        })
        .immediate(),
    );
  }

  /** Nothing is left to write: the write-ahead log goes into the file and is truncated, if no one is in the way (state-db.ts). */
  rest(): boolean {
    return checkpointAtRest(this.db);
  }

  /** The transcript of (`run`, `id`) from the part after `afterSeq`; undefined when none was stored. */
  read(run: string, id: number, afterSeq = 0): StoredTranscript | undefined {
    return guardBusy(this.db, () =>
      this.db
        .transaction(() => {
          const meta = this.db
            .prepare<[string, number], { cut_bytes: number; ended: number; record_id: string | null }>('SELECT cut_bytes, ended, record_id FROM transcripts WHERE run = ? AND id = ?')
            .get(run, id);
          if (!meta) return undefined;
          // Parts that repeat the result read it from its record (a database with a reference has the records table).
          const text = meta.record_id === null ? 'text' : `CASE WHEN ref_len IS NULL THEN text ELSE substr(text, 1, ref_at) || (SELECT ${recordSliceSql('r.seq', 'ref_from', 'ref_len')} FROM records r WHERE r.id = @record) || substr(text, ref_at + 1) END`;
          const parts = this.db
            .prepare<{ record: string | null; run: string; id: number; after: number }, { seq: number; head: number; text: string | null }>(
              `SELECT seq, head, ${text} AS text FROM transcript_parts WHERE run = @run AND id = @id AND seq > @after ORDER BY seq`,
            )
            .all({ ...(meta.record_id === null ? {} : { record: meta.record_id }), run, id, after: afterSeq } as { record: string | null; run: string; id: number; after: number })
            .map((p) => ({ seq: p.seq, head: p.head === 1, text: p.text ?? '' }));
          return { parts, cutBytes: meta.cut_bytes, ended: meta.ended === 1 };
        })
        .deferred(),
    );
  }
}
