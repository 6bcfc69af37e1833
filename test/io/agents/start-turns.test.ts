import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createBoard } from '../../../store/board.js';
import { LocalAgentService } from '../../../src/io/agents/agent-service.js';
import { StartTurns } from '../../../src/io/agents/spawn/start-turns.js';
import { AgentsStore } from '../../../src/io/storage/agents-store.js';
import { RecordStore } from '../../../src/io/storage/records.js';
import { openStateDb } from '../../../src/io/storage/state-db.js';
import { TranscriptStore } from '../../../src/io/storage/transcripts.js';
import { xtermScreens } from '../../../src/io/terminal/screen.js';

/** Counts the event loop's turns: an immediate queued from an immediate runs once per turn. */
function loopTurns(): { now: () => number; stop: () => void } {
  let turns = 0;
  let on = true;
  const tick = (): void => {
    turns++;
    if (on) setImmediate(tick);
  };
  setImmediate(tick);
  return { now: () => turns, stop: () => (on = false) };
}

let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  cleanup = undefined;
});

describe('starts asked for in one turn of the event loop', () => {
  it('run one loop turn apart, the first at once', async () => {
    const loop = loopTurns();
    const turns = new StartTurns();
    const at: number[] = [];
    await Promise.all(Array.from({ length: 8 }, () => turns.take().then(() => at.push(loop.now()))));
    loop.stop();
    expect(at[0]).toBe(0);
    for (let k = 2; k < at.length; k++) expect(at[k]).toBeGreaterThan(at[k - 1]!);
  });

  it('go at once again when the loop turned after the last one', async () => {
    const turns = new StartTurns();
    await Promise.all([turns.take(), turns.take()]);
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    const loop = loopTurns();
    let ran = -1;
    await turns.take().then(() => (ran = loop.now()));
    loop.stop();
    expect(ran).toBe(0);
  });

  it("open their agents' panels in turns of their own, not eight in one", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tai-start-turns-'));
    const db = openStateDb(join(dir, 'tai.db'));
    const loop = loopTurns();
    const opened: number[] = [];
    const board = createBoard({ createScreen: (c, r) => (opened.push(loop.now()), xtermScreens(c, r)), cols: 160, rows: 60 });
    const service = new LocalAgentService({ board, records: new RecordStore(db), agents: new AgentsStore(db), transcripts: new TranscriptStore(db), stateDir: dir, run: 'run-1' });
    cleanup = () => {
      loop.stop();
      service.dispose();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    };
    const started = await Promise.all(Array.from({ length: 8 }, (_, k) => service.spawn({ cmd: 'spawn', kind: 'command', argv: ['/bin/sh', '-c', `echo ${k}`], label: `a${k}` }, Date.now())));
    expect(started).toHaveLength(8);
    expect(opened).toHaveLength(8);
    // The first two may share the turn they were asked in; every later one has a turn of its own.
    expect(new Set(opened).size).toBeGreaterThanOrEqual(7);
    for (const { id } of started) expect((await service.poll(id, 10_000))?.state).toBe('done');
  });
});
