/**
 * A concluded job keeps its answer (the claim check's view of a long result),
 * not the whole result: that is in its record. The service keeps the newest
 * CONCLUDED_JOBS_MAX concluded jobs, so a whole result kept per job would
 * hold 64 of them for as long as the cockpit runs. Counted in bytes of the
 * heap after a full collection, with a margin far wider than the noise.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { createBoard } from '../../../store/board.js';
import { LocalAgentService } from '../../../src/io/agents/agent-service.js';
import { AgentsStore } from '../../../src/io/storage/agents-store.js';
import { RecordStore } from '../../../src/io/storage/records.js';
import { openStateDb } from '../../../src/io/storage/state-db.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

let close: (() => void) | undefined;
afterEach(() => close?.());

const AGENTS = 16;
/** Units of each agent's result: 16 of them are 16 MB (one byte a unit). */
const RESULT_UNITS = 1 << 20;

describe('a concluded job', () => {
  it('keeps its answer, not its whole long result: 16 agents of 1 Mi units each leave less than 4 MB behind', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tai-concluded-'));
    const db = openStateDb(join(dir, 'tai.db'));
    let t = 1_000_000;
    const s = new LocalAgentService({ board: createBoard(), records: new RecordStore(db), agents: new AgentsStore(db), run: 'run-1', now: () => (t += 300) });
    close = () => {
      s.dispose();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    };
    // One agent first: the service's code and the database's statements are then warm.
    const first = s.spawnWorker({ label: 'warm' }, async () => 'short', t);
    await s.poll(first.id, 10_000);
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let n = 0; n < AGENTS; n++) {
      // A unique text made in the worker: nothing but the service can hold it once it returns.
      const { id } = s.spawnWorker({ label: `long ${n}` }, async () => `agent ${n} é `.repeat(RESULT_UNITS / 12).padEnd(RESULT_UNITS, '.'), t);
      const result = await s.poll(id, 30_000);
      expect(result?.recordId).toBeDefined();
      expect(result?.text.length).toBeLessThan(10_000);
    }
    gc();
    const kept = process.memoryUsage().heapUsed - before;
    expect(kept).toBeLessThan(4 << 20);
  });
});
