import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { emptyCap } from '../../../src/core/agents/transcript-cap.js';
import { createBoard } from '../../../store/board.js';
import { LocalAgentService } from '../../../src/io/agents/agent-service.js';
import { AgentsStore } from '../../../src/io/storage/agents-store.js';
import { RecordStore } from '../../../src/io/storage/records.js';
import { compactState } from '../../../src/io/storage/state-gc.js';
import { checkpointSoon, openStateDb, WAL_CHECKPOINT_PAGES, WAL_KEEP_BYTES, WAL_PACED_BYTES, type StateDb } from '../../../src/io/storage/state-db.js';
import { TranscriptStore } from '../../../src/io/storage/transcripts.js';
import { xtermScreens } from '../../../src/io/terminal/screen.js';
import { until } from '../../helpers/until.js';

const opened: StateDb[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) if (db.open) db.close();
});

function open(path: string): StateDb {
  const db = openStateDb(path);
  opened.push(db);
  return db;
}

const walBytes = (path: string): number => {
  try {
    return statSync(`${path}-wal`).size;
  } catch {
    return 0;
  }
};

describe("the state database's write-ahead log", () => {
  it('is cut back to a small size once a checkpoint has taken a burst that a reader held open', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'tai-wal-')), 'tai.db');
    const writer = open(path);
    const reader = open(path);
    writer.exec('CREATE TABLE burst (text TEXT NOT NULL)');
    // A reader on an old snapshot (`tai logs -f`, `tai status`) keeps every frame of the burst in the log.
    reader.exec('BEGIN');
    reader.prepare('SELECT COUNT(*) FROM burst').get();
    const insert = writer.prepare('INSERT INTO burst (text) VALUES (?)');
    for (let i = 0; i < 80; i++) insert.run(`${i}`.padEnd(100_000, '.'));
    expect(walBytes(path)).toBeGreaterThan(8 << 20);
    reader.exec('COMMIT');
    writer.pragma('wal_checkpoint(PASSIVE)');
    // The next write starts the log again from its beginning: the file is cut back then.
    insert.run('after');
    expect(walBytes(path)).toBeLessThanOrEqual(WAL_KEEP_BYTES + 65_536);
  });

  it('is truncated to nothing once the last agent of a service is done and it is quiet', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'tai-wal-rest-')), 'tai.db');
    const db = open(path);
    const board = createBoard({ createScreen: xtermScreens, cols: 120, rows: 40 });
    const transcripts = new TranscriptStore(db);
    const s = new LocalAgentService({ board, records: new RecordStore(db), agents: new AgentsStore(db), transcripts, run: 'run-1' });
    try {
      const { id } = s.spawnWorker({ label: 'talker' }, async (_signal, emit) => {
        for (let i = 0; i < 50; i++) {
          emit({ type: 'text', text: `line ${i} ${'.'.repeat(2_000)}\n` });
          await new Promise((r) => setImmediate(r));
        }
        return 'ok';
      }, Date.now());
      expect((await s.poll(id, 10_000))?.state).toBe('done');
      await until(() => transcripts.read('run-1', id)?.ended === true);
      expect(walBytes(path)).toBeGreaterThan(0);
      await until(() => walBytes(path) === 0, { what: 'the log truncated at rest' });
    } finally {
      s.dispose();
    }
  });
});

describe('checkpoints while agents write', () => {
  it('keep the log under WAL_KEEP_BYTES through a flood of transcript and a long result, never letting it grow to the automatic checkpoint', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'tai-wal-flood-')), 'tai.db');
    const db = open(path);
    const board = createBoard({ createScreen: xtermScreens, cols: 120, rows: 40 });
    const transcripts = new TranscriptStore(db);
    const s = new LocalAgentService({ board, records: new RecordStore(db), agents: new AgentsStore(db), transcripts, run: 'run-1' });
    let most = 0;
    let watching = true;
    const watch = (): void => {
      most = Math.max(most, walBytes(path));
      if (watching) setImmediate(watch);
    };
    watch();
    try {
      // 0xFF bytes decoded: three bytes of UTF-8 a unit, the transcript's worst case; then a result long enough to be a record.
      const { id } = s.spawnWorker({ label: 'flood' }, async (_signal, emit) => {
        for (let i = 0; i < 16; i++) {
          emit({ type: 'text', text: '\ufffd'.repeat(65_536) });
          await new Promise((r) => setImmediate(r));
        }
        return 'a result of words '.repeat(200_000);
      }, Date.now());
      expect((await s.poll(id, 60_000))?.state).toBe('done');
      await until(() => transcripts.read('run-1', id)?.ended === true, { what: 'the transcript written to its end' });
    } finally {
      watching = false;
      s.dispose();
    }
    expect(Number(db.pragma('wal_autocheckpoint', { simple: true }))).toBe(WAL_CHECKPOINT_PAGES);
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(WAL_KEEP_BYTES);
  });

  it('runs a paced checkpoint in a turn of its own once WAL_PACED_BYTES were written, not inside the write', async () => {
    const db = open(join(mkdtempSync(join(tmpdir(), 'tai-wal-paced-')), 'tai.db'));
    const calls: string[] = [];
    const pragma = db.pragma.bind(db);
    db.pragma = ((source: string, options?: Parameters<StateDb['pragma']>[1]) => {
      calls.push(source);
      return pragma(source, options);
    }) as StateDb['pragma'];
    checkpointSoon(db, WAL_PACED_BYTES - 1);
    await new Promise((r) => setImmediate(r));
    expect(calls.filter((c) => c.startsWith('wal_checkpoint'))).toEqual([]);
    checkpointSoon(db, 1);
    expect(calls.filter((c) => c.startsWith('wal_checkpoint'))).toEqual([]);
    await new Promise((r) => setImmediate(r));
    expect(calls.filter((c) => c.startsWith('wal_checkpoint'))).toEqual(['wal_checkpoint(PASSIVE)']);
  });
});

describe('tai record gc on a database of partly used pages', () => {
  it('rewrites the file when much of it is slack, so it ends about as small as what it holds', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'tai-gc-slack-')), 'tai.db');
    const db = open(path);
    const store = new TranscriptStore(db);
    db.pragma('synchronous = OFF'); // the fill only: thousands of small commits
    // Many small parts whose text is then made short, as references to a record make it: the pages stay, mostly empty.
    for (let id = 1; id <= 40; id++) {
      const cap = emptyCap();
      for (let k = 0; k < 200; k++) store.append('1234-1733350000000', id, cap, `${k} ${'x'.repeat(400)}\n`, k === 199, k);
    }
    db.exec('UPDATE transcript_parts SET text = substr(text, 1, 8)');
    db.pragma('wal_checkpoint(TRUNCATE)');
    const before = statSync(path).size;
    expect(compactState(db)).toBe('vacuum');
    const after = statSync(path).size + walBytes(path);
    expect(after).toBeLessThan(before / 2);
    // Once compact, a second gc does not rewrite it again.
    expect(compactState(db)).toBe('incremental');
  });
});
