/**
 * The agent service's upkeep (src/io/agents/agent-service.ts): the slots'
 * renewal and the import of unsaved files ride the board's tick, which runs
 * each second while an agent is live, so a cockpit at rest or with silent
 * agents has no upkeep timer of its own waking it. A real board, slots on a
 * real SQLite file, the clock faked.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createBoard } from '../../../store/board.js';
import { LocalAgentService } from '../../../src/io/agents/agent-service.js';
import { AgentSlots, SLOT_RENEW_MS } from '../../../src/io/storage/agent-slots.js';
import { AgentsStore } from '../../../src/io/storage/agents-store.js';
import { RecordStore } from '../../../src/io/storage/records.js';
import { openStateDb, type StateDb } from '../../../src/io/storage/state-db.js';

const T0 = 1_700_000_000_000;
const dirs: string[] = [];
const dbs: StateDb[] = [];
afterEach(() => {
  vi.useRealTimers();
  for (const db of dbs.splice(0)) db.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A service on a fresh state folder with its slots' renewals counted, and the board's second as the cockpit's clock ticks it. */
function serviceWithSlots() {
  vi.useFakeTimers({ now: T0 });
  const dir = mkdtempSync(join(tmpdir(), 'tai-upkeep-'));
  dirs.push(dir);
  const db = openStateDb(join(dir, 'tai.db'));
  dbs.push(db);
  const slots = new AgentSlots(db, { run: 'upkeep', isAlive: () => true });
  const renew = vi.spyOn(slots, 'renew');
  const board = createBoard();
  const service = new LocalAgentService({ board, records: new RecordStore(db), agents: new AgentsStore(db), slots, stateDir: dir, run: 'upkeep', now: Date.now, runners: {} });
  const seconds = (n: number): void => {
    for (let i = 0; i < n; i++) {
      vi.advanceTimersByTime(1_000);
      board.getState().tick(Date.now());
    }
  };
  return { board, service, renew, seconds };
}

describe("the agent service's upkeep", () => {
  it('arms no timer of its own: a minute at rest renews nothing and nothing wakes for it', () => {
    const { service, renew } = serviceWithSlots();
    vi.advanceTimersByTime(4 * SLOT_RENEW_MS);
    expect(renew).not.toHaveBeenCalled();
    service.dispose();
  });

  it("renews the slots every SLOT_RENEW_MS in the board's tick while an agent is live, and stops with the service", () => {
    const { board, service, renew, seconds } = serviceWithSlots();
    board.getState().open({ label: 'work' }, Date.now());
    seconds((2 * SLOT_RENEW_MS) / 1_000);
    expect(renew.mock.calls.map(([at]) => at - T0)).toEqual([SLOT_RENEW_MS, 2 * SLOT_RENEW_MS]);
    service.dispose();
    seconds(SLOT_RENEW_MS / 1_000);
    expect(renew).toHaveBeenCalledTimes(2);
  });
});
