import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { claimCheckView, codePoints } from '../../../src/core/agents/claim-check.js';
import { AgentsStore, type StoredAgent } from '../../../src/io/storage/agents-store.js';
import { RecordStore } from '../../../src/io/storage/records.js';
import { migrate, openStateDb, type StateDb } from '../../../src/io/storage/state-db.js';

let db: StateDb | undefined;
afterEach(() => db?.close());

function fresh(): string {
  return join(mkdtempSync(join(tmpdir(), 'tai-view-')), 'tai.db');
}

const base: Omit<StoredAgent, 'text' | 'recordId' | 'chars'> = {
  run: 'run-1', id: 1, kind: 'command', label: 'long', task: 't', state: 'done', startedAt: 1, finishedAt: 2, reason: 'exit 0', exitCode: 0, tools: 0, tokens: 0,
};

/** A long result of lines, with a pair of surrogates in its head and its tail. */
const raw = Array.from({ length: 3_000 }, (_, i) => `line ${i} 😀 of a long result`).join('\n');

function storedText(d: StateDb): string {
  return d.prepare<[], { text: string }>("SELECT text FROM agents WHERE run = 'run-1'").get()?.text ?? '';
}

describe("an agent's row with a long result", () => {
  it('keeps the claim check view once, in the record, and reads it back whole (an older database too)', () => {
    db = openStateDb(olderDb());
    const records = new RecordStore(db);
    const agents = new AgentsStore(db);
    const recordId = records.put(raw, { label: 'long' }, 1);
    const text = `attempt 1 (#1): failed: exit 1\n[timeout (wall clock); partial result]\n${claimCheckView(raw, recordId)}`;
    agents.save({ ...base, recordId, chars: codePoints(raw), text });
    expect(storedText(db)).toBe('attempt 1 (#1): failed: exit 1\n[timeout (wall clock); partial result]\n');
    expect(agents.get('run-1', 1)?.text).toBe(text);
    expect(agents.get('run-0', 7)?.text).toBe('an old view');
  });

  it('gets the head and tail back into the row before its record is deleted', () => {
    db = openStateDb(fresh());
    const records = new RecordStore(db);
    const agents = new AgentsStore(db);
    const recordId = records.put(raw, { label: 'long' }, 1);
    const view = claimCheckView(raw, recordId);
    agents.save({ ...base, recordId, chars: codePoints(raw), text: view });
    records.gc(10 ** 12, { maxAgeMs: 1 });
    const text = agents.get('run-1', 1)?.text ?? '';
    const [head, tail] = [view.slice(0, view.indexOf('\n\n[... ')), view.slice(view.lastIndexOf('...]\n\n') + 6)];
    expect(text.startsWith(`${head}\n\n[... `)).toBe(true);
    expect(text.endsWith(`\n\n${tail}`)).toBe(true);
    expect(text).toContain(`was record ${recordId}, since deleted`);
  });

  it('keeps any other text as it is', () => {
    db = openStateDb(fresh());
    const agents = new AgentsStore(db);
    const recordId = new RecordStore(db).put(raw, { label: 'long' }, 1);
    agents.save({ ...base, recordId, chars: codePoints(raw), text: 'said [... 3 characters omitted; but not a view' });
    expect(agents.get('run-1', 1)?.text).toBe('said [... 3 characters omitted; but not a view');
  });
});

/** A database with the agents' table as its first version made it, and a row in it. */
function olderDb(): string {
  const path = fresh();
  const old = new Database(path);
  migrate(old, 'agents/1', [
    `CREATE TABLE agents (run TEXT NOT NULL, id INTEGER NOT NULL, kind TEXT NOT NULL, label TEXT NOT NULL, task TEXT NOT NULL, state TEXT NOT NULL,
       started_at INTEGER NOT NULL, finished_at INTEGER, reason TEXT NOT NULL, record_id TEXT, chars INTEGER NOT NULL, exit_code INTEGER, text TEXT NOT NULL,
       tools INTEGER NOT NULL DEFAULT 0, tokens INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (run, id))`,
    'CREATE INDEX agents_started ON agents(started_at)',
  ]);
  old.prepare("INSERT INTO agents (run, id, kind, label, task, state, started_at, reason, record_id, chars, text) VALUES ('run-0', 7, 'command', 'x', 't', 'done', 1, '', 'rgone', 9000, 'an old view')").run();
  old.close();
  return path;
}

describe('an older database whose rows were written before the view was kept once', () => {
  it('has those rows made references to their records when first opened, each still read back whole', () => {
    const path = fresh();
    const old = new Database(path);
    // As the first version left it: the records, and rows holding the claim check's view whole.
    migrate(old, 'agents/1', [
      `CREATE TABLE agents (run TEXT NOT NULL, id INTEGER NOT NULL, kind TEXT NOT NULL, label TEXT NOT NULL, task TEXT NOT NULL, state TEXT NOT NULL,
         started_at INTEGER NOT NULL, finished_at INTEGER, reason TEXT NOT NULL, record_id TEXT, chars INTEGER NOT NULL, exit_code INTEGER, text TEXT NOT NULL,
         tools INTEGER NOT NULL DEFAULT 0, tokens INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (run, id))`,
      'CREATE INDEX agents_started ON agents(started_at)',
    ]);
    const records = new RecordStore(old);
    const insert = old.prepare('INSERT INTO agents (run, id, kind, label, task, state, started_at, reason, record_id, chars, text) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
    const texts = new Map<number, string>();
    for (let id = 1; id <= 20; id++) {
      const body = `${id}: ${raw}`;
      const recordId = records.put(body, { label: `long ${id}` }, 1);
      const text = `attempt 1 (#${id}): done\n${claimCheckView(body, recordId)}`;
      texts.set(id, text);
      insert.run('run-1', id, 'command', `long ${id}`, 't', 'done', id, 'exit 0', recordId, codePoints(body), text);
    }
    // A row whose record is gone, and one whose record no longer reads as its view: both kept as they are.
    insert.run('run-1', 21, 'command', 'gone', 't', 'done', 21, '', 'rgone', codePoints(raw), claimCheckView(raw, 'rgone'));
    const other = records.put(`${raw}!`, { label: 'other' }, 1);
    const mismatch = claimCheckView(raw.replace('line 0', 'LINE 0'), other).replace(`${codePoints(raw)} characters`, `${codePoints(raw) + 1} characters`);
    insert.run('run-1', 22, 'command', 'other', 't', 'done', 22, '', other, codePoints(raw) + 1, mismatch);
    const held = (d: Database.Database): number => (d.prepare('SELECT SUM(LENGTH(text)) AS n FROM agents').get() as { n: number }).n;
    const before = held(old);
    old.close();

    db = openStateDb(path);
    const agents = new AgentsStore(db);
    expect(held(db)).toBeLessThan(before / 5);
    for (const [id, text] of texts) expect(agents.get('run-1', id)?.text).toBe(text);
    expect(agents.get('run-1', 21)?.text).toBe(claimCheckView(raw, 'rgone'));
    expect(agents.get('run-1', 22)?.text).toBe(mismatch);
    expect(storedTextOf(db, 22)).toBe(mismatch);
    // Once: a second open changes nothing, and a record deleted later gives its row the view back.
    new AgentsStore(db);
    new RecordStore(db).gc(10 ** 12, { maxAgeMs: 1 });
    expect(agents.get('run-1', 3)?.text).toContain('since deleted');
  });
});

function storedTextOf(d: StateDb, id: number): string {
  return d.prepare<[number], { text: string }>("SELECT text FROM agents WHERE run = 'run-1' AND id = ?").get(id)?.text ?? '';
}
