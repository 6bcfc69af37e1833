import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { emptyCap } from '../../../src/core/agents/transcript-cap.js';
import { AgentsStore, type StoredAgent } from '../../../src/io/storage/agents-store.js';
import { RecordStore } from '../../../src/io/storage/records.js';
import { openStateDb, type StateDb } from '../../../src/io/storage/state-db.js';
import { TranscriptStore } from '../../../src/io/storage/transcripts.js';
import { run as recordCli } from '../../../src/cli/results/record.js';
import { recordingIo } from '../../helpers/recording-io.js';

const HOUR = 3_600_000;
// The CLI reads the real clock: the rows are placed before it.
const NOW = Date.now();

/** The file's bytes with its write-ahead log. */
function bytes(path: string): number {
  let n = statSync(path).size;
  try {
    n += statSync(`${path}-wal`).size;
  } catch {
    // no WAL
  }
  return n;
}

function agent(id: number, finishedAt: number | null): StoredAgent {
  return { run: 'run-1', id, kind: 'command', label: `a${id}`, task: 't', state: finishedAt === null ? 'running' : 'done', startedAt: (finishedAt ?? NOW) - HOUR, finishedAt, reason: '', recordId: null, chars: 0, exitCode: finishedAt === null ? null : 0, text: 'x', tools: 0, tokens: 0 };
}

/** 40 agents finished two days ago with a 100 KB transcript and a 100 KB record each; one live agent and one finished an hour ago. */
function fill(db: StateDb): void {
  const agents = new AgentsStore(db);
  const transcripts = new TranscriptStore(db);
  const records = new RecordStore(db);
  const text = (n: number): string => `${'lorem ipsum dolor sit amet '.repeat(3_700)}${n}\n`;
  for (let id = 1; id <= 42; id++) {
    const old = id <= 40;
    const live = id === 41;
    const at = old ? NOW - 48 * HOUR : NOW - HOUR;
    agents.save(agent(id, live ? null : at));
    transcripts.append('run-1', id, emptyCap(), text(id), !live, at);
    if (!live) records.put(text(id), { label: `a${id}` }, at);
  }
}

describe('tai record gc on a real state database', () => {
  it('deletes the rows, transcripts and records of agents finished before --older-than, keeps the live and the recent, and gives the room back', async () => {
    const state = mkdtempSync(join(tmpdir(), 'tai-gc-'));
    const path = join(state, 'tai', 'tai.db');
    const db = openStateDb(path);
    fill(db);
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    const before = bytes(path);
    expect(before).toBeGreaterThan(8 << 20);

    const io = recordingIo({ env: { XDG_STATE_HOME: state } });
    expect(await recordCli(['gc', '--older-than', '1d'], io)).toBe(0);
    expect(io.stdout).toMatch(/^deleted 40 records; kept 1 \(\d+ characters\)\ndeleted 40 agents' rows and 40 transcripts finished over 1d ago; the database went from [\d.]+ MB to [\d.]+ MB\n$/);
    // Before: gc deleted only records over 30 days old and never gave a page back (the file stayed at its size).
    const after = bytes(path);
    expect(after).toBeLessThan(before / 5);

    const check = new Database(path, { readonly: true });
    const ids = (sql: string): number[] => (check.prepare(sql).all() as { id: number }[]).map((r) => r.id);
    expect(ids('SELECT id FROM agents ORDER BY id')).toEqual([41, 42]);
    expect(ids('SELECT id FROM transcripts ORDER BY id')).toEqual([41, 42]);
    expect((check.prepare('SELECT COUNT(*) AS n FROM records').get() as { n: number }).n).toBe(1);
    check.close();
  });

  it('converts a database made before incremental vacuum at its first gc, and shrinks it', async () => {
    const state = mkdtempSync(join(tmpdir(), 'tai-gc-'));
    const path = join(state, 'tai', 'tai.db');
    // An older database: no auto_vacuum, as tai made them before.
    openStateDb(path).close();
    const raw = new Database(path);
    raw.exec('VACUUM');
    raw.close();
    const plain = new Database(path);
    expect(plain.pragma('auto_vacuum', { simple: true })).toBe(2);
    plain.pragma('auto_vacuum = NONE');
    plain.exec('VACUUM');
    expect(plain.pragma('auto_vacuum', { simple: true })).toBe(0);
    plain.close();
    const db = openStateDb(path);
    fill(db);
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    const before = bytes(path);

    const io = recordingIo({ env: { XDG_STATE_HOME: state } });
    expect(await recordCli(['gc', '--older-than', '0'], io)).toBe(0);
    expect(bytes(path)).toBeLessThan(before / 5);
    const check = new Database(path, { readonly: true });
    expect(check.pragma('auto_vacuum', { simple: true })).toBe(2);
    // The live agent's transcript stays, whatever the age.
    expect((check.prepare('SELECT id FROM transcripts').all() as { id: number }[]).map((r) => r.id)).toEqual([41]);
    check.close();
  });

  it('refuses an --older-than that is not a duration, with usage', async () => {
    const io = recordingIo({ env: { XDG_STATE_HOME: mkdtempSync(join(tmpdir(), 'tai-gc-')) } });
    expect(await recordCli(['gc', '--older-than', 'soon'], io)).toBe(64);
    expect(io.stderr).toContain("--older-than takes a duration such as 30m, 12h or 7d (or 0), got 'soon'");
  });
});

describe('tai record gc and the search index', () => {
  it('leaves the file near what its records hold after deleting most of them, the index of the deleted records gone with them', async () => {
    const state = mkdtempSync(join(tmpdir(), 'tai-gc-fts-'));
    const path = join(state, 'tai', 'tai.db');
    const db = openStateDb(path);
    const records = new RecordStore(db);
    // Words of many spellings, as agents' text has: an index of this size per byte of record.
    let n = 0;
    const text = (): string => Array.from({ length: 8_000 }, () => `w${(n++ % 5_000).toString(36)}`).join(' ');
    for (let i = 1; i <= 60; i++) {
      records.put(text(), { label: `r${i}` }, i <= 54 ? NOW - 48 * HOUR : NOW - HOUR);
      // Indexed as a cockpit does, a little at a time: the index in several segments.
      if (i % 10 === 0) records.indexAll();
    }
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();

    const io = recordingIo({ env: { XDG_STATE_HOME: state } });
    expect(await recordCli(['gc', '--older-than', '1d'], io)).toBe(0);
    const check = new Database(path, { readonly: true });
    const held = (check.prepare('SELECT SUM(chars) AS n FROM records').get() as { n: number }).n;
    const index = (check.prepare("SELECT SUM(pgsize) AS n FROM dbstat WHERE name LIKE 'record_parts_fts%'").get() as { n: number }).n;
    check.close();
    // Before: the deleted records' words stayed in the index as delete markers (3.3 times what was kept, the file 4.7 times).
    expect(index).toBeLessThan(held * 0.5);
    expect(bytes(path)).toBeLessThan(held * 2);
    // The records kept are still found.
    const after = new RecordStore(openStateDb(path));
    expect(after.search('w1').length).toBe(6);
    // The index agrees with the parts it names (FTS5 checks each row against its content).
    after.db.prepare("INSERT INTO record_parts_fts(record_parts_fts) VALUES ('integrity-check')").run();
    after.db.close();
  });
});

describe('tai record gc and the launches kept for a restore', () => {
  it('deletes old launches no restore needs, and keeps those of a cockpit that crashed and of live agents', async () => {
    const { RestoreStore } = await import('../../../src/io/restore/restore-store.js');
    const { collectFinished } = await import('../../../src/io/storage/state-gc.js');
    const db = openStateDb(join(mkdtempSync(join(tmpdir(), 'tai-gc-launch-')), 'tai', 'tai.db'));
    const store = new RestoreStore(db);
    const old = NOW - 48 * HOUR;
    const cockpit = (run: string, state: 'running' | 'ended') =>
      store.addCockpit({ run, name: run, machine: 'm', uid: 0, pid: 1, start: null, argv: ['sh'], cwd: '/', state, claimedBy: null, startedAt: old, aliveAt: old, endedAt: state === 'ended' ? old : null });
    cockpit('crashed', 'running');
    cockpit('killed', 'ended');
    const launch = (run: string, id: number, live: boolean, at: number) => store.saveLaunch({ run, id, launch: '{}', live, startedAt: at, restoredFrom: null }, at);
    launch('crashed', 1, true, old); // a crashed cockpit's live agent: its restore needs it
    launch('crashed', 2, false, old); // ended long ago
    launch('killed', 1, true, old); // its cockpit ended on purpose: nothing restores it
    launch('spawn-run', 1, false, old); // an in-process spawn, done
    launch('spawn-run', 2, false, NOW - HOUR); // done, but recent
    collectFinished(db, NOW, 24 * HOUR);
    const left = db.prepare<[], { run: string; id: number }>('SELECT run, id FROM launches ORDER BY run, id').all();
    expect(left).toEqual([
      { run: 'crashed', id: 1 },
      { run: 'spawn-run', id: 2 },
    ]);
    expect(db.prepare<[], { run: string }>('SELECT run FROM cockpits ORDER BY run').all()).toEqual([{ run: 'crashed' }]);
    db.close();
  });
});
