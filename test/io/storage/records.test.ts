import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RecordStore, RECORDS_MAX_AGE_DAYS, ftsQuery } from '../../../src/io/storage/records.js';
import { AgentsStore, statusRow, SUPERVISOR_GONE, type StoredAgent } from '../../../src/io/storage/agents-store.js';
import { openStateDb, type StateDb } from '../../../src/io/storage/state-db.js';

const DAY = 86_400_000;
let db: StateDb | undefined;
afterEach(() => db?.close());

function fresh(): { store: RecordStore; path: string } {
  const path = join(mkdtempSync(join(tmpdir(), 'tai-rec-')), 'tai.db');
  db = openStateDb(path);
  return { store: new RecordStore(db), path };
}

describe('the record store', () => {
  it('stores a record in a file only its owner can read, committed before put returns', () => {
    const { store, path } = fresh();
    const id = store.put('hello world', { label: 'agent #1' }, 1_000);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const other = openStateDb(path);
    try {
      expect(new RecordStore(other).read(id)).toEqual({ id, offset: 0, text: 'hello world', total: 11, next: null });
    } finally {
      other.close();
    }
    expect(store.meta(id)).toEqual({ id, createdAt: 1_000, label: 'agent #1', tag: 'agent-output', chars: 11 });
  });

  it('pages a record by offset and limit, in code points', () => {
    const { store } = fresh();
    const text = 'ab😀cd'.repeat(1_000);
    const id = store.put(text, { label: 'x' }, 0);
    const chars = [...text];
    expect(store.read(id, 0, 3)).toEqual({ id, offset: 0, text: 'ab😀', total: 5_000, next: 3 });
    expect(store.read(id, 4_998, 10)).toEqual({ id, offset: 4_998, text: 'cd', total: 5_000, next: null });
    let offset: number | null = 0;
    let whole = '';
    while (offset !== null) {
      const page = store.read(id, offset, 777);
      whole += page?.text ?? '';
      offset = page?.next ?? null;
    }
    expect(whole).toBe(text);
    expect(chars.length).toBe(5_000);
    expect(store.read('rmissing')).toBeUndefined();
  });

  it('finds records by full text, every word, best first', () => {
    const { store } = fresh();
    const a = store.put('the build failed: missing semicolon in parser.ts', { label: 'builder' }, 0);
    const b = store.put('all tests passed; the parser is fine', { label: 'tester' }, 0);
    store.indexAll();
    expect(store.search('parser').map((h) => h.id).sort()).toEqual([a, b].sort());
    const hits = store.search('parser failed');
    expect(hits.map((h) => h.id)).toEqual([a]);
    expect(hits[0]?.snippet).toContain('»failed«');
    expect(store.search('tester').map((h) => h.id)).toEqual([b]);
    expect(store.search('"quoted" AND (weird')).toEqual([]);
    expect(ftsQuery('a "b"')).toBe('"a"* """b"""*');
  });

  it('collects by age, then by total size, oldest first', () => {
    const { store } = fresh();
    const now = 100 * DAY;
    const old = store.put('x'.repeat(10), { label: 'old' }, now - (RECORDS_MAX_AGE_DAYS + 1) * DAY);
    const mid = store.put('y'.repeat(40), { label: 'mid' }, now - 2 * DAY);
    const young = store.put('z'.repeat(40), { label: 'young' }, now - DAY);
    expect(store.gc(now)).toEqual({ deleted: 1, kept: 2, keptChars: 80 });
    expect(store.read(old)).toBeUndefined();
    expect(store.gc(now, { maxChars: 50 })).toEqual({ deleted: 1, kept: 1, keptChars: 40 });
    expect(store.read(mid)).toBeUndefined();
    expect(store.read(young)?.text).toBe('z'.repeat(40));
    expect(store.search('yyyy')).toEqual([]);
    expect(store.search('zzzz').map((h) => h.id)).toEqual([young]);
  });
});

describe('the agents store', () => {
  it('keeps rows across processes and settles the live rows of a dead supervisor', () => {
    fresh();
    const agents = new AgentsStore(db as StateDb);
    const base = { kind: 'command', label: 'a', task: 't', startedAt: 1, finishedAt: null, reason: '', recordId: null, chars: 0, exitCode: null, text: '', tools: 2, tokens: 30 };
    agents.save({ ...base, run: '999999999-1', id: 1, state: 'running' });
    agents.save({ ...base, run: `${process.pid}-1`, id: 1, state: 'running' });
    agents.save({ ...base, run: '999999999-1', id: 2, state: 'done', exitCode: 0 });
    expect(agents.settleDead(50, (pid) => pid === process.pid)).toBe(1);
    expect(agents.get('999999999-1', 1)).toMatchObject({ state: 'cancelled', reason: SUPERVISOR_GONE, finishedAt: 50, exitCode: 130 });
    expect(agents.get(`${process.pid}-1`, 1)?.state).toBe('running');
    expect(agents.list().length).toBe(3);
    expect(statusRow(agents.get('999999999-1', 1) as StoredAgent, 100, `${process.pid}-1`)).toEqual({
      id: 1,
      kind: 'agent',
      label: 'a (run 999999999-1)',
      task: 't',
      state: 'cancelled',
      startedAt: 1,
      lastEventAt: 50,
      finishedAt: 50,
      elapsedMs: 49,
      tools: 2,
      tokens: 30,
      droppedBytes: 0,
      reason: SUPERVISOR_GONE,
    });
  });
});
