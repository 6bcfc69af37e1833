/**
 * What `tai record gc` does to the rest of the state database (docs/agents.md, "Results and the claim check"):
 * what finished longer ago than an age goes (never a live agent's), the search index is merged first (FTS5's
 * deletes grow it until then), and the room is given back by incremental vacuum, or a whole VACUUM when partly
 * used pages hold more than GC_VACUUM_SLACK of a file at most GC_VACUUM_MAX_BYTES.
 */
import { statSync } from 'node:fs';
import { guardBusy, type StateDb } from './state-db.js';

/** The largest file gc rewrites whole to drop its partly used pages' slack (a rewrite of this much takes seconds). */
export const GC_VACUUM_MAX_BYTES = 256 * 1_048_576;

/** The share of the file in unused bytes of used pages past which gc rewrites it. */
export const GC_VACUUM_SLACK = 0.2;

/** The records' full-text index (src/io/records/record-schema.ts). */
const SEARCH_INDEX = 'record_parts_fts';

/** How long finished agents are kept when `--older-than` is not given. */
export const GC_OLDER_THAN_DEFAULT = '7d';

/** What the collection removed, and the file's bytes (with its WAL) before and after. */
export interface StateGcReport {
  readonly agents: number;
  readonly transcripts: number;
  readonly records: number;
  readonly bytesBefore: number;
  readonly bytesAfter: number;
}

/** True when the database has a table named `name` (a store that never ran has none). */
function hasTable(db: StateDb, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
}

/** Bytes of the database file and its WAL. */
export function stateBytes(db: StateDb): number {
  let n = 0;
  for (const file of [db.name, `${db.name}-wal`]) {
    try {
      n += statSync(file).size;
    } catch {
      // No WAL right now: nothing to count.
    }
  }
  return n;
}

/**
 * Deletes, in one transaction, what is older than `now - olderThanMs`: finished agents' rows, transcripts of
 * agents not live, records, and the launches and cockpits no restore needs.
 */
export function collectFinished(db: StateDb, now: number, olderThanMs: number): Pick<StateGcReport, 'agents' | 'transcripts' | 'records'> {
  const cutoff = now - Math.max(0, olderThanMs);
  return guardBusy(db, () =>
    db
      .transaction(() => {
        const agents = hasTable(db, 'agents') ? db.prepare('DELETE FROM agents WHERE finished_at IS NOT NULL AND finished_at < ?').run(cutoff).changes : 0;
        let transcripts = 0;
        if (hasTable(db, 'transcripts')) {
          // Not live: ended, or no live row of its agent says otherwise (its supervisor died before the footer).
          const live = hasTable(db, 'agents') ? 'EXISTS (SELECT 1 FROM agents a WHERE a.run = t.run AND a.id = t.id AND a.finished_at IS NULL)' : '0';
          const gone = db.prepare<[number], { run: string; id: number }>(`SELECT run, id FROM transcripts t WHERE updated_at < ? AND (ended = 1 OR NOT ${live})`).all(cutoff);
          const parts = db.prepare('DELETE FROM transcript_parts WHERE run = ? AND id = ?');
          const head = db.prepare('DELETE FROM transcripts WHERE run = ? AND id = ?');
          for (const t of gone) {
            parts.run(t.run, t.id);
            transcripts += head.run(t.run, t.id).changes;
          }
        }
        const records = hasTable(db, 'records') ? db.prepare('DELETE FROM records WHERE created_at < ? AND writing IS NULL').run(cutoff).changes : 0;
        if (hasTable(db, 'launches')) {
          // A launch is kept for a restore (docs/restore.md): one that ended, or whose cockpit ended on purpose or was restored, is not needed past the age.
          db.prepare(
            "DELETE FROM launches WHERE updated_at < ? AND (live = 0 OR run IN (SELECT run FROM cockpits WHERE state IN ('ended', 'restored')))",
          ).run(cutoff);
          db.prepare("DELETE FROM cockpits WHERE state IN ('ended', 'restored') AND COALESCE(ended_at, alive_at) < ? AND run NOT IN (SELECT run FROM launches)").run(cutoff);
        }
        return { agents, transcripts, records };
      })
      .immediate(),
  );
}

/** How gc gave the room back: freed pages cut off the end, or the whole file rewritten. */
export type Compaction = 'incremental' | 'vacuum';

/** Gives freed pages back to the file system, rewrites the file when much of it is slack, and truncates the WAL (see the file comment). */
export function compactState(db: StateDb): Compaction {
  return guardBusy(db, () => {
    if (hasTable(db, SEARCH_INDEX)) mergeSearchIndex(db);
    let how: Compaction = 'incremental';
    if (Number(db.pragma('auto_vacuum', { simple: true })) !== 2) {
      // An older database: switch it to incremental once; the VACUUM applies the switch and frees everything.
      db.pragma('auto_vacuum = INCREMENTAL');
      how = 'vacuum';
    } else {
      db.pragma('incremental_vacuum');
      const { size, unused } = slackOf(db);
      if (size <= GC_VACUUM_MAX_BYTES && unused > size * GC_VACUUM_SLACK) how = 'vacuum';
    }
    if (how === 'vacuum') db.exec('VACUUM');
    db.pragma('wal_checkpoint(TRUNCATE)');
    return how;
  });
}

/**
 * Merges the search index into one segment without its deleted entries. FTS5's 'optimize' leaves an index in one
 * segment as it is, delete markers and all, so a row written and deleted in one transaction makes a second
 * segment for it to merge. Rowid 0 is no part's.
 */
function mergeSearchIndex(db: StateDb): void {
  db.transaction(() => {
    db.prepare(`INSERT INTO ${SEARCH_INDEX}(rowid, text, label) VALUES (0, 'gc', '')`).run();
    db.prepare(`INSERT INTO ${SEARCH_INDEX}(${SEARCH_INDEX}, rowid, text, label) VALUES ('delete', 0, 'gc', '')`).run();
    db.prepare(`INSERT INTO ${SEARCH_INDEX}(${SEARCH_INDEX}) VALUES ('optimize')`).run();
  }).immediate();
}

/** Bytes of the used pages and the bytes unused in them (SQLite's dbstat; none counted where it is missing). */
function slackOf(db: StateDb): { size: number; unused: number } {
  try {
    const row = db.prepare<[], { size: number | null; unused: number | null }>('SELECT SUM(pgsize) AS size, SUM(unused) AS unused FROM dbstat WHERE aggregate = TRUE').get();
    return { size: row?.size ?? 0, unused: row?.unused ?? 0 };
  } catch {
    return { size: 0, unused: 0 };
  }
}
