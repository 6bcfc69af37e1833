/**
 * Agents' transcripts on the state database (issue 13, `tai logs ID [-f]`):
 * the plain text of every agent's panel (src/core/agents/transcript.ts),
 * written by its supervisor per flush, so any terminal can read it while the
 * agent runs and after its cockpit has gone. Keyed like the agents' rows by
 * run and panel id. Each transcript holds at most TRANSCRIPT_MAX_BYTES: its
 * head and its tail, with the bytes cut between them counted
 * (src/core/agents/transcript-cap.ts).
 */
import { place, type CapState } from '../../core/agents/transcript-cap.js';
import { guardBusy, migrate, type StateDb } from './state-db.js';

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
  }

  /** Appends `text` to the transcript of (`run`, `id`) under its cap; `ended` marks the footer written. */
  append(run: string, id: number, cap: CapState, text: string, ended: boolean, now: number): void {
    guardBusy(this.db, () =>
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
        })
        .immediate(),
    );
  }

  /** The transcript of (`run`, `id`) from the part after `afterSeq`; undefined when none was stored. */
  read(run: string, id: number, afterSeq = 0): StoredTranscript | undefined {
    return guardBusy(this.db, () =>
      this.db
        .transaction(() => {
          const meta = this.db.prepare<[string, number], { cut_bytes: number; ended: number }>('SELECT cut_bytes, ended FROM transcripts WHERE run = ? AND id = ?').get(run, id);
          if (!meta) return undefined;
          const parts = this.db
            .prepare<[string, number, number], { seq: number; head: number; text: string }>('SELECT seq, head, text FROM transcript_parts WHERE run = ? AND id = ? AND seq > ? ORDER BY seq')
            .all(run, id, afterSeq)
            .map((p) => ({ seq: p.seq, head: p.head === 1, text: p.text }));
          return { parts, cutBytes: meta.cut_bytes, ended: meta.ended === 1 };
        })
        .deferred(),
    );
  }
}
