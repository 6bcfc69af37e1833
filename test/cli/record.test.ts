/**
 * `tai record` through the built CLI on a real state database: read prints
 * the whole record to a pipe and with --all, one page with --limit; an
 * offset past the end is a bad line; search finds words, their starts and
 * text inside words, and exits 1 when nothing matches.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { RecordStore } from '../../src/io/storage/records.js';
import { openStateDb, type StateDb } from '../../src/io/storage/state-db.js';
import { runTai } from '../helpers/tai-cli.js';

let env: NodeJS.ProcessEnv;
let db: StateDb;
let store: RecordStore;

beforeEach(() => {
  const dir = mkdtempSync(join(tmpdir(), 'tai-record-'));
  env = { XDG_STATE_HOME: join(dir, 'state') };
  db = openStateDb(join(dir, 'state', 'tai', 'tai.db'));
  store = new RecordStore(db);
});
afterEach(() => db.close());

/** A text of `lines` lines `bigline-<i>-abc ...`, longer than a page when lines is large. */
function bigText(lines: number): string {
  return Array.from({ length: lines }, (_, i) => `bigline-${i}-abc ${'.'.repeat(40)}\n`).join('');
}

describe('tai record read', () => {
  test('to a pipe it prints the whole record, past the 6000-character page', async () => {
    const text = bigText(400);
    const id = store.put(text, { label: 'big' }, 1);
    expect(text.length).toBeGreaterThan(6000 * 3);
    expect(await runTai(['record', 'read', id], env)).toEqual({ code: 0, out: text, err: '' });
    expect(await runTai(['record', 'read', id, '--all'], env)).toEqual({ code: 0, out: text, err: '' });
  });

  test('with --offset or --limit it prints one page and says where the next starts', async () => {
    const text = bigText(400);
    const id = store.put(text, { label: 'big' }, 1);
    const run = await runTai(['record', 'read', id, '--limit', '100'], env);
    expect(run.code).toBe(0);
    expect(run.out).toBe(text.slice(0, 100));
    expect(run.err).toBe(`\ntai: 0..100 of ${text.length} characters; next: tai record read ${id} --offset 100; all: --all\n`);
  });

  test('an offset past the end of the record says so and exits 64', async () => {
    const id = store.put('short', { label: 's' }, 1);
    const run = await runTai(['record', 'read', id, '--offset', '99'], env);
    expect(run.code).toBe(64);
    expect(run.err.split('\n')[0]).toBe(`tai record: --offset 99 is past the end of record ${id} (5 characters)`);
    expect((await runTai(['record', 'read', 'rnope'], env)).code).toBe(1);
  });
});

describe('tai record search', () => {
  test('finds a record by a whole token, a prefix and a substring inside a word', async () => {
    const id = store.put(bigText(3), { label: 'flood' }, 1);
    store.put('something else entirely', { label: 'other' }, 2);
    for (const query of ['bigline-1-abc', 'bigline-1-ab', 'bigline', 'igline-2', 'FLOOD', 'ine-0-abc']) {
      const run = await runTai(['record', 'search', query], env);
      expect(run.code, query).toBe(0);
      expect(run.out.split('\n')[0], query).toMatch(new RegExp(`^${id}  `));
    }
  });

  test('FTS syntax in the query is searched for literally', async () => {
    store.put('a NEAR(b c) "quoted" x*y', { label: 'syntax' }, 1);
    for (const query of ['NEAR(b', '"quoted"', 'x*y', '(b', '*']) {
      const run = await runTai(['record', 'search', query], env);
      expect(run.code, query).toBe(0);
    }
    // Words of FTS syntax alone are words: found only where the text holds them.
    for (const query of ['-', 'AND', 'OR']) expect(await runTai(['record', 'search', query], env), query).toEqual({ code: 1, out: '', err: 'tai record: no record matches\n' });
  });

  test('finds a record whose words fall in different parts, side by side across a part\'s end or far apart', async () => {
    // Parts of 1,000 code points: `GRAND ` ends the first, `ÉCLAIR` starts the second, `Zèbre` is in the fourth.
    const words = (n: number): string => `${'lorem '.repeat(Math.ceil(n / 6))}`.slice(0, n - 1) + ' ';
    const id = store.put(`${words(994)}GRAND ÉCLAIR ${words(2_000)}Zèbre tail`, { label: 'seams' }, 1, 1_000);
    store.put('grand only', { label: 'other' }, 2);
    for (const query of [['grand', 'éclair'], ['Grand Éclair'], ['zèbre', 'éclair'], ['ZEBRE grand']]) {
      const run = await runTai(['record', 'search', ...query], env);
      expect(run.code, query.join(' ')).toBe(0);
      expect(run.out.split('\n').filter((l) => /^r\w+ {2}/.test(l)), query.join(' ')).toEqual([expect.stringMatching(new RegExp(`^${id} {2}`))]);
    }
  });

  test('no record matches: says so on stderr and exits 1, as grep does', async () => {
    store.put(bigText(3), { label: 'flood' }, 1);
    expect(await runTai(['record', 'search', 'nothing-like-this'], env)).toEqual({ code: 1, out: '', err: 'tai record: no record matches\n' });
  });
});
