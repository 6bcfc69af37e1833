/**
 * The claim check's record store on the state database (docs/spec.md, "Claim check"): a long result is committed
 * before its id is handed out, in parts a turn each, invisible until `finish`; indexed afterwards a part at a
 * time in idle turns (found by a substring scan until then); kept by the retention policy of docs/agents.md,
 * "Results and the claim check". Offsets and lengths count code points, as SQLite's substr() does.
 */
import { open, type FileHandle } from 'node:fs/promises';
import type { RecordPage } from '../../core/agents/agent-service.js';
import { codePoints } from '../../core/agents/claim-check.js';
import { partEnd } from '../../core/agents/record-query.js';
import { RECORD_PAGE_MAX, SPILL_LIMIT } from '../../core/policy.js';
import { processAlive } from '../socket/socket-path.js';
import { guardBusy, unsynced, type StateDb } from './state-db.js';
import { randomHex } from '../crypto-lazy.js';
import { chunkTextSql, migrateRecords, RECORD_PART } from '../records/record-schema.js';
import { searchRecords, toMeta, type MetaRow, type RecordHit, type RecordMeta } from '../records/record-search.js';
import { recordSliceSql } from '../records/record-slice.js';

export { ftsQuery, wordQueries } from '../../core/agents/record-query.js';
export { RECORD_PART } from '../records/record-schema.js';
export type { RecordHit, RecordMeta } from '../records/record-search.js';

/** Records older than this many days are deleted by gc. */
export const RECORDS_MAX_AGE_DAYS = 30;
/** gc keeps at most this many characters of records, newest first. */
export const RECORDS_MAX_CHARS = 100_000_000;
/** A page holds this many characters unless the reader asks otherwise. */
export const RECORD_PAGE_DEFAULT = SPILL_LIMIT;
/** A page holds at most this many characters (the control socket clamps record_read's limit to it). */
export { RECORD_PAGE_MAX };

const DAY_MS = 86_400_000;
/** A record still being written after this long is taken as abandoned whatever its writer's pid says (the pid may have been reused). */
const WRITING_MAX_MS = DAY_MS;

/** A draft's row was removed while it was written (another process's gc or sweep): the result goes elsewhere. */
export class RecordDraftGoneError extends Error {
  override readonly name = 'RecordDraftGoneError';
  constructor(id: string) {
    super(`record ${id} was removed while it was written (by another process's gc); the result is kept in a file instead`);
  }
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

/** A record being written: its row, and where its next part starts (in UTF-16 units of its text and in code points). */
export interface RecordDraft {
  readonly seq: number;
  readonly id: string;
  unit: number;
  cp: number;
}

/** The claim check's records on one state database. */
export class RecordStore {
  /** `now` dates the sweep of abandoned drafts. */
  constructor(readonly db: StateDb, now: number = Date.now()) {
    migrateRecords(db);
    this.#sweepAbandoned(now);
  }

  /** Stores `text` whole in one transaction and returns its new id (an import, a test: no loop to keep free). */
  put(text: string, meta: { label: string; tag?: string; id?: string }, now: number, part: number = RECORD_PART): string {
    const id = meta.id ?? newRecordId(now);
    guardBusy(this.db, () =>
      this.db
        .transaction(() => {
          const draft = this.begin({ ...meta, id }, now);
          while (!this.writePart(draft, text, part)) {
            // one part after another, all in this transaction
          }
          this.finish(draft);
        })
        .immediate(),
    );
    return id;
  }

  /** Starts record `meta.id`: a row no reader sees until `finish` (its length is counted part by part, and set then). */
  begin(meta: { label: string; tag?: string; id: string }, now: number): RecordDraft {
    return unsynced(this.db, () =>
      guardBusy(this.db, () =>
        this.db
          .transaction(() => {
            const seq = Number(
              this.db
                .prepare('INSERT INTO records (id, created_at, label, tag, chars, writing) VALUES (?, ?, ?, ?, 0, ?)')
                .run(meta.id, now, meta.label, meta.tag ?? 'agent-output', process.pid).lastInsertRowid,
            );
            // Indexed after its finish, in idle turns (src/io/agents/record-indexer.ts).
            this.db.prepare('INSERT INTO record_index (seq, indexed) VALUES (?, 0)').run(seq);
            return { seq, id: meta.id, unit: 0, cp: 0 };
          })
          .immediate(),
      ),
    );
  }

  /** Writes the draft's next part of `text` (one INSERT of at most `part` code points); true when the text is all written. */
  writePart(draft: RecordDraft, text: string, part: number = RECORD_PART): boolean {
    if (draft.unit >= text.length) return true;
    const end = partEnd(text, draft.unit, part);
    const piece = text.slice(draft.unit, end);
    const len = codePoints(piece);
    unsynced(this.db, () => guardBusy(this.db, () => this.db.prepare('INSERT INTO record_parts (seq, start, len, text) VALUES (?, ?, ?, ?)').run(draft.seq, draft.cp, len, piece)));
    draft.unit = end;
    draft.cp += len;
    return draft.unit >= text.length;
  }

  /** The draft is whole: from now on it is read, found, indexed and counted. Its commit syncs the log, and with it every part before it. */
  finish(draft: RecordDraft): void {
    const changed = guardBusy(this.db, () => this.db.prepare('UPDATE records SET writing = NULL, chars = ? WHERE seq = ? AND writing IS NOT NULL').run(draft.cp, draft.seq).changes);
    if (changed !== 1) throw new RecordDraftGoneError(draft.id);
  }

  /** Flushes the database's log to disk off the loop (a worker thread), so the finish's own sync has little left to write. */
  async syncLog(): Promise<void> {
    let file: FileHandle | undefined;
    try {
      file = await open(`${this.db.name}-wal`, 'r');
      await file.sync();
    } catch {
      // No log file (not WAL, or just checkpointed away): the finish's commit syncs what there is.
    } finally {
      await file?.close().catch(() => undefined);
    }
  }

  /** Gives up a draft: its row and parts go. */
  abandon(draft: RecordDraft): void {
    guardBusy(this.db, () =>
      this.db
        .transaction(() => {
          this.db.prepare('DELETE FROM records WHERE seq = ? AND writing IS NOT NULL').run(draft.seq);
          // Parts written after another process removed the draft's row have no row to go with.
          this.db.prepare('DELETE FROM record_parts WHERE seq = ? AND NOT EXISTS (SELECT 1 FROM records WHERE seq = ?)').run(draft.seq, draft.seq);
        })
        .immediate(),
    );
  }

  /** A page of a record, or undefined when there is no such record (or it is not yet whole). */
  read(id: string, offset: number = 0, limit: number = RECORD_PAGE_DEFAULT): RecordPage | undefined {
    const from = Math.max(0, Math.floor(offset));
    const size = Math.min(RECORD_PAGE_MAX, Math.max(1, Math.floor(limit)));
    const row = guardBusy(this.db, () =>
      this.db
        .prepare<{ from: number; size: number; id: string }, { text: string; chars: number }>(
          `SELECT ${recordSliceSql('records.seq', '@from', '@size')} AS text, chars FROM records WHERE id = @id AND writing IS NULL`,
        )
        .get({ from, size, id }),
    );
    if (!row) return undefined;
    const end = from + codePoints(row.text);
    return { id, offset: from, text: row.text, total: row.chars, next: end < row.chars ? end : null };
  }

  /** The metadata of a whole record, or undefined. */
  meta(id: string): RecordMeta | undefined {
    const row = this.db
      .prepare<[string], MetaRow>('SELECT id, created_at, label, tag, chars FROM records WHERE id = ? AND writing IS NULL')
      .get(id);
    return row ? toMeta(row) : undefined;
  }

  /** Whole records whose text or label holds every word of `query` (src/io/storage/record-search.ts). */
  search(query: string, limit: number = 20): RecordHit[] {
    return guardBusy(this.db, () => searchRecords(this.db, query, limit));
  }

  /**
   * Indexes the next part of the oldest record not yet whole in the index, in one transaction, so after a crash
   * the next step, in any process, goes on from there. False when nothing is left to index.
   */
  indexStep(): boolean {
    return guardBusy(this.db, () =>
      this.db
        .transaction(() => {
          const next = this.db
            .prepare<[], { seq: number; chars: number; indexed: number; label: string }>(
              'SELECT r.seq, r.chars, i.indexed, r.label FROM record_index i JOIN records r ON r.seq = i.seq WHERE r.writing IS NULL ORDER BY i.seq LIMIT 1',
            )
            .get();
          if (next === undefined) return false;
          const part = this.db
            .prepare<[number, number], { id: number; len: number; text: string }>(`SELECT p.id, p.len, ${chunkTextSql('p')} AS text FROM record_parts p WHERE p.seq = ? AND p.start = ?`)
            .get(next.seq, next.indexed);
          if (part === undefined || next.indexed + part.len >= next.chars) this.db.prepare('DELETE FROM record_index WHERE seq = ?').run(next.seq);
          else this.db.prepare('UPDATE record_index SET indexed = ? WHERE seq = ?').run(next.indexed + part.len, next.seq);
          // No part where the mark stands: its count said more than its parts hold, and nothing is left to index.
          if (part !== undefined) this.db.prepare('INSERT INTO record_parts_fts (rowid, text, label) VALUES (?, ?, ?)').run(part.id, part.text, next.indexed === 0 ? next.label : '');
          return true;
        })
        .immediate(),
    );
  }

  /** Indexes every record not yet whole in the index (a command that searches: no loop to keep free). */
  indexAll(): void {
    while (this.indexStep()) {
      // one part per transaction, as in the idle turns
    }
  }

  /** Applies the retention policy to whole records: by age, then by total size, oldest first. */
  gc(now: number, policy: GcPolicy = {}): GcReport {
    const maxAgeMs = policy.maxAgeMs ?? RECORDS_MAX_AGE_DAYS * DAY_MS;
    const maxChars = policy.maxChars ?? RECORDS_MAX_CHARS;
    return guardBusy(this.db, () =>
      this.db
        .transaction(() => {
          const byAge = this.db.prepare('DELETE FROM records WHERE created_at < ? AND writing IS NULL').run(now - maxAgeMs).changes;
          const rows = this.db
            .prepare<[], { seq: number; chars: number }>('SELECT seq, chars FROM records WHERE writing IS NULL ORDER BY created_at DESC, seq DESC')
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

  /** Removes the drafts whose writer is gone (a crash mid-way), or that are older than any write takes. */
  #sweepAbandoned(now: number): void {
    try {
      const drafts = this.db.prepare<[], { seq: number; writing: number; created_at: number }>('SELECT seq, writing, created_at FROM records WHERE writing IS NOT NULL').all();
      const gone = drafts.filter((d) => !processAlive(d.writing) || d.created_at < now - WRITING_MAX_MS);
      if (gone.length === 0) return;
      const drop = this.db.prepare('DELETE FROM records WHERE seq = ? AND writing IS NOT NULL');
      this.db.transaction(() => gone.forEach((d) => drop.run(d.seq))).immediate();
    } catch {
      // A locked or full database: the drafts stay invisible, and the next open sweeps them.
    }
  }
}

/** A new record id: sortable by time, unguessable enough to not collide. */
export function newRecordId(now: number): string {
  return `r${Math.max(0, Math.floor(now)).toString(36)}${randomHex(4)}`;
}
