/**
 * `npm run bench -- db-size`: what the state database holds after N agents
 * with long results, through the agent service on a real file: each agent
 * streams a log-like text in events and returns it whole (a record, a
 * transcript, a row). Prints the file's size after a checkpoint and, by
 * table (SQLite's dbstat), the records' text, the full-text index, the
 * transcripts and the agents' rows. A benchmark reports; it never fails.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBoard } from '../../store/board.js';
import { xtermScreens } from '../../src/io/terminal/screen.js';
import { LocalAgentService } from '../../src/io/agents/agent-service.js';
import { openStateDb, type StateDb } from '../../src/io/storage/state-db.js';
import { RecordStore } from '../../src/io/storage/records.js';
import { AgentsStore } from '../../src/io/storage/agents-store.js';
import { TranscriptStore } from '../../src/io/storage/transcripts.js';

const WORDS = ['error', 'warning', 'build', 'test', 'passed', 'failed', 'module', 'import', 'type', 'string', 'number', 'function', 'return', 'value', 'expected', 'received', 'assert', 'file', 'line', 'column'];

/** A log-like result of `lines` lines, different per agent. */
function logText(agent: number, lines: number): string {
  let seed = agent * 7919 + 1;
  const next = (n: number): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    const words = Array.from({ length: 6 + next(8) }, () => WORDS[next(WORDS.length)]).join(' ');
    out.push(`src/pkg${next(40)}/mod-${next(500)}.ts:${next(2000)}:${next(80)}: ${words} (code ${next(10_000)})`);
  }
  return out.join('\n');
}

/** Bytes of each group of tables (dbstat), after a checkpoint. */
function bytesBy(db: StateDb): Record<string, number> {
  const rows = db.prepare<[], { name: string; bytes: number }>("SELECT name, SUM(pgsize) AS bytes FROM dbstat GROUP BY name").all();
  const group = (name: string): string =>
    /fts/.test(name) ? 'full-text index' : name.startsWith('records') || name.startsWith('record_parts') ? 'records' : name.startsWith('transcript') ? 'transcripts' : name.startsWith('agents') ? 'agents' : 'other';
  const out: Record<string, number> = {};
  for (const r of rows) out[group(r.name)] = (out[group(r.name)] ?? 0) + r.bytes;
  return out;
}

/** Transcripts whose footer is not written yet (a long end is written over later turns). */
function unended(db: StateDb): number {
  return db.prepare<[], { n: number }>('SELECT count(*) AS n FROM transcripts WHERE ended = 0').get()?.n ?? 0;
}

function unindexed(db: StateDb): number {
  try {
    return db.prepare<[], { n: number }>('SELECT count(*) AS n FROM record_index').get()?.n ?? 0;
  } catch {
    return 0; // a store that indexes as it writes
  }
}

/** Runs `agents` agents of `lines` lines each and prints the table. */
export async function run(options: { agents?: number; lines?: number } = {}): Promise<void> {
  const agents = options.agents ?? 40;
  const lines = options.lines ?? 1_500;
  const dir = mkdtempSync(join(tmpdir(), 'tai-dbsize-'));
  const path = join(dir, 'tai.db');
  const db = openStateDb(path);
  const board = createBoard({ createScreen: xtermScreens, cols: 160, rows: 60 });
  const records = new RecordStore(db);
  const service = new LocalAgentService({ board, records, agents: new AgentsStore(db), transcripts: new TranscriptStore(db), stateDir: dir });
  let textBytes = 0;
  for (let k = 0; k < agents; k++) {
    const text = logText(k, lines);
    textBytes += Buffer.byteLength(text);
    const { id } = service.spawnWorker({ label: `agent-${k}` }, async (_signal, emit) => {
      for (let at = 0; at < text.length; at += 16_384) {
        emit({ type: 'text', text: text.slice(at, at + 16_384) });
        await new Promise((r) => setImmediate(r));
      }
      return text;
    }, Date.now());
    await service.poll(id, 120_000);
  }
  // Until the transcripts' ends and the index are written.
  const settle = Date.now();
  while ((unindexed(db) > 0 || unended(db) > 0) && Date.now() - settle < 120_000) await new Promise((r) => setTimeout(r, 50));
  service.dispose();
  db.pragma('wal_checkpoint(TRUNCATE)');
  const by = bytesBy(db);
  const mb = (n: number | undefined): string => ((n ?? 0) / 1e6).toFixed(2);
  const out = (l: string): boolean => process.stdout.write(`${l}\n`);
  out(`\n## db-size: the state database after ${agents} agents of ${lines} log lines each (${mb(textBytes)} MB of result text)\n`);
  const rows = db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM transcript_parts').get()?.n ?? 0;
  out('| file MB | records MB | full-text index MB | transcripts MB | transcript rows (bytes of pages each) | agents MB | other MB |');
  out('|---|---|---|---|---|---|---|');
  out(`| ${mb(statSync(path).size)} | ${mb(by['records'])} | ${mb(by['full-text index'])} | ${mb(by['transcripts'])} | ${rows} (${rows > 0 ? Math.round((by['transcripts'] ?? 0) / rows) : 0}) | ${mb(by['agents'])} | ${mb(by['other'])} |`);
  db.close();
  rmSync(dir, { recursive: true, force: true });
}
