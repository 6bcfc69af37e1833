/**
 * The claim check's view of a record as an agent's row keeps it: a reference to the record, not a copy, written
 * back into the row by a trigger before the record is deleted. Rows from before (`agents/2`) are made references
 * once, by the first tai that knows `agents/3`.
 */
import { claimLine, codePoints } from '../../core/agents/claim-check.js';
import { guardBusy, type StateDb } from '../storage/state-db.js';
import { recordSliceSql } from './record-slice.js';

/** Before a record is deleted, the rows that refer to its view get its head and tail back, and a line saying it was deleted. */
export const RECORD_DELETE_TRIGGER = `CREATE TRIGGER IF NOT EXISTS records_agents_bd BEFORE DELETE ON records BEGIN
     UPDATE agents SET text = text || ${recordSliceSql('old.seq', '0', 'view_head')} || char(10, 10)
         || '[... ' || (old.chars - view_head - view_tail) || ' characters omitted; the whole result (' || old.chars || ' characters) was record ' || old.id || ', since deleted ...]'
         || char(10, 10) || ${recordSliceSql('old.seq', 'old.chars - view_tail', 'view_tail')},
       view_head = NULL, view_tail = NULL
      WHERE record_id = old.id AND view_head IS NOT NULL;
   END`;

/** What the migration reads of an agent's row. */
interface ViewRow {
  run: string;
  id: number;
  record_id: string | null;
  chars: number;
  text: string;
}

/** The migration that reads the views of rows written before `agents/2` from their records. */
const OLD_VIEWS = 'agents/3';

/**
 * Rows written before `agents/2` hold their claim check's view whole: each becomes a reference to its record, as
 * `save` makes one, where the record reads back exactly the row's text; once per database. Returns how many.
 */
export function compactOldViews(db: StateDb, now: number = Date.now()): number {
  const applied = (): boolean => db.prepare<[string], { name: string }>('SELECT name FROM schema WHERE name = ?').get(OLD_VIEWS) !== undefined;
  // Every later open only reads (no write lock for a done migration).
  if (guardBusy(db, applied)) return 0;
  return guardBusy(db, () =>
    db
      .transaction(() => {
        if (applied()) return 0;
        const done = db.prepare('INSERT INTO schema (name, applied_at) VALUES (?, ?)');
        // No records table: no record, so no view to read from one.
        if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'records'").get() === undefined) return done.run(OLD_VIEWS, now) && 0;
        const rows = db.prepare<[], ViewRow>('SELECT run, id, record_id, chars, text FROM agents WHERE record_id IS NOT NULL AND view_head IS NULL').all();
        // A records table not yet moved into parts (records/3) still holds its text on the row.
        const whole = db.prepare<[], { name: string }>("SELECT name FROM pragma_table_info('records') WHERE name = 'text'").get() !== undefined;
        const ends = db.prepare<{ head: number; tail: number; id: string }, { head: string; tail: string }>(
          whole
            ? 'SELECT substr(text, 1, @head) AS head, substr(text, chars - @tail + 1) AS tail FROM records WHERE id = @id'
            : `SELECT ${recordSliceSql('records.seq', '0', '@head')} AS head, ${recordSliceSql('records.seq', 'records.chars - @tail', '@tail')} AS tail FROM records WHERE id = @id AND writing IS NULL`,
        );
        const update = db.prepare('UPDATE agents SET text = ?, view_head = ?, view_tail = ? WHERE run = ? AND id = ?');
        let made = 0;
        for (const row of rows) {
          const recordId = row.record_id ?? '';
          const view = splitView(row.text, recordId, row.chars);
          const read = view && ends.get({ head: view.head, tail: view.tail, id: recordId });
          // Only where reading it back gives the very text stored (a record changed or gone keeps the row as it is).
          if (!view || !read || `${view.before}${read.head}\n\n${claimLine(recordId, row.chars, view.head, row.chars - view.head - view.tail)}\n\n${read.tail}` !== row.text) continue;
          if (made === 0) db.exec(RECORD_DELETE_TRIGGER);
          made += update.run(view.before, view.head, view.tail, row.run, row.id).changes;
        }
        done.run(OLD_VIEWS, now);
        return made;
      })
      .immediate(),
  );
}

/**
 * A text ending with the claim check's view of record `recordId`: what comes before the view and the code points
 * of its head and tail; undefined for any other text.
 */
export function splitView(text: string, recordId: string, total: number): { before: string; head: number; tail: number } | undefined {
  const found = new RegExp(`\\n\\n\\[\\.\\.\\. (\\d+) characters omitted; the whole result \\(${total} characters\\) is record ${recordId}: .*--offset (\\d+) --limit \\d+\\) \\.\\.\\.\\]\\n\\n`).exec(text);
  if (!found) return undefined;
  const omitted = Number(found[1]);
  const head = Number(found[2]);
  const tail = total - head - omitted;
  // The head is the `head` code points before the line, the tail all after it.
  let start = found.index;
  for (let k = 0; k < head && start > 0; k++) start -= start >= 2 && isLow(text.charCodeAt(start - 1)) && isHigh(text.charCodeAt(start - 2)) ? 2 : 1;
  if (tail < 0 || codePoints(text.slice(found.index + found[0].length)) !== tail || codePoints(text.slice(start, found.index)) !== head) return undefined;
  return { before: text.slice(0, start), head, tail };
}

function isHigh(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

function isLow(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}
