import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createBoard } from '../../../store/board.js';
import { LocalAgentService } from '../../../src/io/agents/agent-service.js';
import { TRANSCRIPT_PART_UNITS } from '../../../src/io/transcripts/agent-transcripts.js';
import { AgentsStore } from '../../../src/io/storage/agents-store.js';
import { RecordStore } from '../../../src/io/storage/records.js';
import { openStateDb, type StateDb } from '../../../src/io/storage/state-db.js';
import { TranscriptStore } from '../../../src/io/storage/transcripts.js';
import { xtermScreens } from '../../../src/io/terminal/screen.js';
import { TAI_CLI, type TaiRun } from '../../helpers/tai-cli.js';
import { testEnv } from '../../helpers/test-env.js';
import { until } from '../../helpers/until.js';

let close: (() => void) | undefined;
afterEach(() => close?.());

/** A service on a real state database whose clock moves only when the test moves it. */
function service(): { service: LocalAgentService; db: StateDb; transcripts: TranscriptStore; clock: { t: number }; board: ReturnType<typeof createBoard> } {
  const db = openStateDb(join(mkdtempSync(join(tmpdir(), 'tai-pacing-')), 'tai.db'));
  const board = createBoard({ createScreen: xtermScreens, cols: 120, rows: 40 });
  const transcripts = new TranscriptStore(db);
  const clock = { t: 1_000_000 };
  const s = new LocalAgentService({ board, records: new RecordStore(db), agents: new AgentsStore(db), transcripts, run: 'run-1', now: () => clock.t });
  close = () => {
    s.dispose();
    db.close();
  };
  return { service: s, db, transcripts, clock, board };
}

const rowsOf = (db: StateDb, id: number): number => (db.prepare('SELECT COUNT(*) AS n FROM transcript_parts WHERE run = ? AND id = ?').get('run-1', id) as { n: number }).n;
const line = (i: number): string => `line ${String(i).padStart(5, '0')} of a streaming agent, about a hundred characters of plain text to keep\n`;

describe("a streaming agent's transcript", () => {
  it('is written in at most one part per second of its clock while it streams, and reads back whole and in order', async () => {
    const { service: s, db, transcripts, clock, board } = service();
    const lines = Array.from({ length: 100 }, (_, i) => line(i));
    const { id } = s.spawnWorker({ label: 'streaming' }, async (_signal, emit) => {
      // Ten seconds of its clock, a line every 100 ms, the board publishing each (as its clock's flushes do).
      for (const l of lines) {
        emit({ type: 'text', text: l });
        clock.t += 100;
        board.getState().flush(clock.t);
        await new Promise((r) => setImmediate(r));
      }
      return 'ok';
    }, clock.t);
    expect((await s.poll(id, 10_000))?.state).toBe('done');
    await until(() => transcripts.read('run-1', id)?.ended === true);
    // Before: a part every 250 ms (about 40 for these 10 s); now one a second, the opening line's and the end's.
    expect(rowsOf(db, id)).toBeLessThanOrEqual(10 + 3);
    const text = transcripts.read('run-1', id)?.parts.map((p) => p.text).join('') ?? '';
    expect(text).toContain(lines.join(''));
  });

  it("writes a part's worth at once, without waiting for its clock", async () => {
    const { service: s, transcripts } = service();
    const lines = Array.from({ length: Math.ceil((2.5 * TRANSCRIPT_PART_UNITS) / line(0).length) }, (_, i) => line(i));
    let go: () => void = () => {};
    const gate = new Promise<void>((resolve) => (go = resolve));
    const { id } = s.spawnWorker({ label: 'fast' }, async (_signal, emit) => {
      for (const l of lines) {
        emit({ type: 'text', text: l });
        await new Promise((r) => setImmediate(r));
      }
      await gate;
      return 'ok';
    }, 1_000_000);
    // The clock never moves: only the size of what waits makes these writes.
    const stored = (): string => transcripts.read('run-1', id)?.parts.map((p) => p.text).join('') ?? '';
    await until(() => stored().length >= 2 * TRANSCRIPT_PART_UNITS, { what: "two parts' worth stored while the agent runs" });
    expect(lines.join('').startsWith(stored().slice(stored().indexOf('line 00000')))).toBe(true);
    go();
    await s.poll(id, 10_000);
    await until(() => transcripts.read('run-1', id)?.ended === true);
    expect(stored()).toContain(lines.join(''));
  });
});

describe("an agent's turn that ends in a question", () => {
  it('has what it said before the question written at once, without waiting for its clock', async () => {
    const { service: s, transcripts, clock, board } = service();
    let go: () => void = () => {};
    const gate = new Promise<void>((resolve) => (go = resolve));
    const { id } = s.spawnWorker({ label: 'asker' }, async (_signal, emit) => {
      emit({ type: 'text', text: 'I will now edit README.md\n' });
      await gate;
      return 'ok';
    }, clock.t);
    await until(() => board.getState().panels.some((p) => p.id === id && p.state === 'running'));
    const stored = (): string => transcripts.read('run-1', id)?.parts.map((p) => p.text).join('') ?? '';
    expect(stored()).not.toContain('edit README.md');
    // The question puts the panel in `asking` and publishes; the clock has not moved.
    board.getState().ask(id, { tool: 'Edit README.md', detail: [], options: [{ id: 'y', name: 'Allow', kind: 'allow_once' }] }, clock.t, () => {});
    await until(() => stored().includes('I will now edit README.md'), { what: 'the text before the question stored' });
    go();
    await s.poll(id, 10_000);
  });
});

describe('tai logs -f on a streaming agent', () => {
  it('prints every line once and in order across its few, full parts and its end', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tai-pacing-logs-'));
    const env = { XDG_STATE_HOME: dir, TAI_PLEXER_SOCKET: '' };
    // An agent that streams numbered lines for about three seconds, some mid-line pauses included.
    const script = join(dir, 'agent.mjs');
    writeFileSync(script, "let i = 0; const t = setInterval(() => { process.stdout.write(`n${i} `); if (i % 3 === 0) process.stdout.write('\\n'); if (++i === 300) { clearInterval(t); process.stdout.write('\\nlast\\n'); } }, 10);\n");
    const agent = spawn(process.execPath, [TAI_CLI, 'spawn', '--label', 'numbers', '--', process.execPath, script], { env: testEnv(env), stdio: 'ignore' });
    const agentEnded = new Promise<number>((resolve) => agent.on('close', (code) => resolve(code ?? -1)));
    const db = (): Database.Database => new Database(join(dir, 'tai', 'tai.db'), { readonly: true, fileMustExist: true });
    await until(() => {
      try {
        const d = db();
        try {
          return d.prepare("SELECT 1 FROM sqlite_master WHERE name = 'transcript_parts'").get() !== undefined && d.prepare('SELECT 1 FROM transcript_parts').get() !== undefined;
        } finally {
          d.close();
        }
      } catch {
        return false;
      }
    }, { timeout: 20_000, what: 'the agent’s first part' });
    const follow = await new Promise<TaiRun>((resolve) => {
      const child = spawn(process.execPath, [TAI_CLI, 'logs', '1', '-f'], { env: testEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      child.stderr.on('data', (c: Buffer) => (err += c.toString()));
      child.on('close', (code) => resolve({ code: code ?? -1, out, err }));
    });
    expect(await agentEnded).toBe(0);
    expect(follow.code).toBe(0);
    const numbers = [...follow.out.matchAll(/\bn(\d+)\b/g)].map((m) => Number(m[1]));
    expect(numbers).toEqual(Array.from({ length: 300 }, (_, i) => i));
    expect(follow.out).toMatch(/\nlast\n\n✓ done · \d+s · exit 0 · \d+ chars\n$/);
  }, 60_000);
});
