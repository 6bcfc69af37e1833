import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createBoard } from '../../../store/board.js';
import { LocalAgentService } from '../../../src/io/agents/agent-service.js';
import { AgentsStore } from '../../../src/io/storage/agents-store.js';
import { RecordStore } from '../../../src/io/storage/records.js';
import { openStateDb, type StateDb } from '../../../src/io/storage/state-db.js';
import { TranscriptStore } from '../../../src/io/storage/transcripts.js';
import { xtermScreens } from '../../../src/io/terminal/screen.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { until } from '../../helpers/until.js';

let close: (() => void) | undefined;
afterEach(() => close?.());

/** A service with transcripts on a real state database, as the cockpit has. */
function service(): { service: LocalAgentService; db: StateDb; transcripts: TranscriptStore; records: RecordStore } {
  const clock = new FakeClock(1_000_000);
  const db = openStateDb(join(mkdtempSync(join(tmpdir(), 'tai-refs-')), 'tai.db'));
  const board = createBoard({ createScreen: xtermScreens, cols: 120, rows: 40 });
  const records = new RecordStore(db);
  const transcripts = new TranscriptStore(db);
  let t = 1_000_000;
  const s = new LocalAgentService({ board, records, agents: new AgentsStore(db), transcripts, run: 'run-1', now: () => (t += 300) });
  close = () => {
    s.dispose();
    db.close();
  };
  void clock;
  return { service: s, db, transcripts, records };
}

/** Characters of text the transcript's parts hold themselves. */
function heldChars(db: StateDb): number {
  return (db.prepare('SELECT COALESCE(SUM(LENGTH(text)), 0) AS n FROM transcript_parts').get() as { n: number }).n;
}

const line = (i: number): string => `line ${String(i).padStart(5, '0')} of a long answer, plain text that needs no sanitizing\n`;

describe('a long result and its transcript', () => {
  it('is stored once: the transcript parts that repeat the result read it from its record, and read back the same', async () => {
    const { service: s, db, transcripts } = service();
    const lines = Array.from({ length: 600 }, (_, i) => line(i));
    const { id } = s.spawnWorker({ label: 'long' }, async (_signal, emit) => {
      for (let i = 0; i < lines.length; i += 20) {
        emit({ type: 'text', text: lines.slice(i, i + 20).join('') });
        // A part per write: the transcript writes at most every 250 ms of its clock.
        await new Promise((r) => setImmediate(r));
      }
      emit({ type: 'tool_start', name: 'shell', args: 'ls' });
      return lines.join('');
    }, 1_000_000);
    const result = await s.poll(id, 10_000);
    const whole = lines.join('');
    expect(result?.recordId).toBeDefined();
    const text = transcripts.read('run-1', id)?.parts.map((p) => p.text).join('') ?? '';
    expect(text).toContain(whole);
    expect(text).toContain('⏺ shell(ls)');
    // Before: the transcript held every character of the result a second time beside the record.
    expect(heldChars(db)).toBeLessThan(whole.length / 4);

    // A record deleted by gc gives its text back to the transcript first: tai logs still reads it whole.
    db.prepare('DELETE FROM records').run();
    expect(heldChars(db)).toBeGreaterThanOrEqual(whole.length);
    expect(transcripts.read('run-1', id)?.parts.map((p) => p.text).join('')).toBe(text);
  });

  it("is stored once for a command agent's stdout too", async () => {
    const { service: s, db, transcripts } = service();
    const script = `for (let i = 0; i < 2000; i++) process.stdout.write(${JSON.stringify(line(0).replace('00000', '@'))}.replace('@', String(i).padStart(5, '0')))`;
    const { id } = await s.spawn({ cmd: 'spawn', kind: 'command', argv: [process.execPath, '-e', script] }, 1_000_000);
    const result = await s.poll(id, 20_000);
    expect(result?.state).toBe('done');
    expect(result?.recordId).toBeDefined();
    // A long end is written a slice a turn after the answer: wait for its footer and its references.
    await until(() => transcripts.read('run-1', id)?.ended === true && heldChars(db) < (result?.chars ?? 0) / 4);
    const text = transcripts.read('run-1', id)?.parts.map((p) => p.text).join('') ?? '';
    expect(text).toContain(line(1999));
    expect(heldChars(db)).toBeLessThan((result?.chars ?? 0) / 4);
  });

  it('keeps its own text where the panel showed something else than the result (sanitized text)', async () => {
    const { service: s, db, transcripts } = service();
    const noisy = Array.from({ length: 300 }, (_, i) => `\x1b[31mred ${i}\x1b[0m ${line(i)}`).join('');
    const { id } = s.spawnWorker({ label: 'colours' }, async (_signal, emit) => {
      emit({ type: 'text', text: noisy });
      return noisy;
    }, 1_000_000);
    expect((await s.poll(id, 10_000))?.recordId).toBeDefined();
    const text = transcripts.read('run-1', id)?.parts.map((p) => p.text).join('') ?? '';
    expect(text).toContain('red 299 line 00299');
    expect(text).not.toContain('\x1b');
    expect(heldChars(db)).toBeGreaterThan(noisy.length / 2);
  });
});
