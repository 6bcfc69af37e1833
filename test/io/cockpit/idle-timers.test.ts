/**
 * A cockpit with silent agents wakes once a second, for its board's tick:
 * the parts that have work due on a clock while agents run (the restore
 * record's last sign of life, the agent service's slot renewal and unsaved
 * import) ride that tick instead of arming timers of their own, since a
 * cleared Node timer still wakes the process at its old time. The real
 * board, its clock, the last sign of life and the agent service with slots
 * on a real SQLite file; the clock faked, the timers counted.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createBoard } from '../../../store/board.js';
import { startBoardClock } from '../../../src/io/cockpit/board-clock.js';
import { aliveTouch } from '../../../src/io/restore/alive-touch.js';
import { LocalAgentService } from '../../../src/io/agents/agent-service.js';
import { AgentSlots } from '../../../src/io/storage/agent-slots.js';
import { AgentsStore } from '../../../src/io/storage/agents-store.js';
import { RecordStore } from '../../../src/io/storage/records.js';
import { openStateDb } from '../../../src/io/storage/state-db.js';

const T0 = 1_700_000_000_000;
let dir: string | undefined;
afterEach(() => {
  vi.useRealTimers();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** 8 silent agents on a real board with its clock, the sign of life and the agent service with slots, for two minutes; the ticks, publishes and timers counted. */
function twoMinutes(seen: () => boolean): { armed: Set<number>; touched: number; renewed: number; ticks: number; published: number } {
  vi.useFakeTimers({ now: T0 });
  dir = mkdtempSync(join(tmpdir(), 'tai-idle-timers-'));
  const db = openStateDb(join(dir, 'tai.db'));
  const slots = new AgentSlots(db, { run: 'idle', isAlive: () => true });
  const renew = vi.spyOn(slots, 'renew');
  const board = createBoard();
  board.getState().seenBy?.(seen);
  const service = new LocalAgentService({ board, records: new RecordStore(db), agents: new AgentsStore(db), slots, stateDir: dir, run: 'idle', now: Date.now, runners: {} });
  const touched: number[] = [];
  const alive = aliveTouch((at) => touched.push(at - T0), Date.now);
  alive.follow(board);
  const clock = startBoardClock(board, Date.now);
  try {
    for (let i = 1; i <= 8; i++) board.getState().open({ label: `silent ${i}` }, Date.now());
    vi.advanceTimersByTime(0);
    let ticks = 0;
    let published = 0;
    board.getState().onTick(() => void ticks++);
    board.subscribe((state, before) => void (state.panels !== before.panels && published++));
    const armed: number[] = [];
    for (let s = 0; s < 120; s++) {
      vi.advanceTimersByTime(1_000);
      armed.push(vi.getTimerCount());
    }
    return { armed: new Set(armed), touched: touched.length, renewed: renew.mock.calls.length, ticks, published };
  } finally {
    clock.stop();
    alive.stop();
    service.dispose();
    db.close();
  }
}

describe('a cockpit with 8 silent agents', () => {
  it("has one timer armed through two minutes, the board's tick, and writes its sign of life and renews its slots on it", () => {
    const r = twoMinutes(() => true);
    expect(r.armed).toEqual(new Set([1]));
    expect(r.touched).toBe(1 + 120 / 5);
    expect(r.renewed).toBe(120 / 15);
    expect(r.ticks).toBe(120);
    expect(r.published).toBe(120);
  });

  it('seen by nobody (no client attached), ticks every 5 s, publishes only its decision, and still writes its sign of life and renews its slots', () => {
    const r = twoMinutes(() => false);
    expect(r.armed).toEqual(new Set([1]));
    expect(r.ticks).toBe(120 / 5);
    expect(r.published).toBe(1); // the watchdog's one decision: idle after 60 s of silence
    expect(r.touched).toBe(1 + 120 / 5);
    expect(r.renewed).toBe(120 / 15);
  });
});
