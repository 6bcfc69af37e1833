/**
 * A cockpit's last sign of life (src/io/restore/alive-touch.ts,
 * docs/restore.md): written only while an agent runs, in the turn of the
 * board's second (its tick, with no timer of its own), once when the last
 * agent ends; nothing at all without agents. With the clock faked: a real
 * board, and the record on a real SQLite file through recordCockpit.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createBoard } from '../../../store/board.js';
import { ALIVE_EVERY_MS, aliveTouch } from '../../../src/io/restore/alive-touch.js';
import { recordCockpit, type RestoringService } from '../../../src/io/restore/cockpit-restore.js';
import { RestoreStore } from '../../../src/io/restore/restore-store.js';
import { openStateDb, STATE_DB_FILE } from '../../../src/io/storage/state-db.js';

const T0 = 1_700_000_000_000;
const dirs: string[] = [];
afterEach(() => {
  vi.useRealTimers();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A board, the touch following it with its writes recorded, and the board's second as the cockpit's clock ticks it. */
function following() {
  vi.useFakeTimers({ now: T0 });
  const board = createBoard();
  const writes: number[] = [];
  const alive = aliveTouch((at) => writes.push(at - T0), Date.now);
  alive.follow(board);
  const seconds = (n: number): void => {
    for (let i = 0; i < n; i++) {
      vi.advanceTimersByTime(1_000);
      board.getState().tick(Date.now());
    }
  };
  return { board, writes, alive, seconds };
}

describe("a cockpit's last sign of life", () => {
  it('is not written in a minute without agents, and no timer waits for it', () => {
    const { writes, alive, seconds } = following();
    seconds(60);
    expect(writes).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
    alive.stop();
  });

  it("is written while an agent runs every ALIVE_EVERY_MS, in the board's second, and once when the last agent ends", () => {
    const { board, writes, alive, seconds } = following();
    seconds(2);
    const id = board.getState().open({ label: 'work' }, Date.now());
    seconds(11);
    expect(writes).toEqual([2_000, 7_000, 12_000]);
    board.getState().finish(id, 'done', 'ok', Date.now());
    expect(writes).toEqual([2_000, 7_000, 12_000, 13_000]);
    seconds(60);
    expect(writes).toHaveLength(4);
    alive.stop();
  });

  it("rides the board's tick while an agent is live, with no timer of its own (a cleared timer still wakes the process)", () => {
    const { board, writes, alive, seconds } = following();
    board.getState().open({ label: 'work' }, T0);
    expect(writes).toEqual([0]);
    expect(vi.getTimerCount()).toBe(0);
    for (let s = 0; s < 3 * ALIVE_EVERY_MS; s += 1_000) {
      seconds(1);
      expect(vi.getTimerCount()).toBe(0);
    }
    expect(writes).toEqual([0, ALIVE_EVERY_MS, 2 * ALIVE_EVERY_MS, 3 * ALIVE_EVERY_MS]);
    alive.stop();
    seconds(60);
    expect(writes).toHaveLength(4);
  });
});

describe("a recorded cockpit's liveness on the state database", () => {
  const service: RestoringService = {
    restore: () => {
      throw new Error('nothing to restore');
    },
    showEnded: () => {
      throw new Error('nothing to restore');
    },
  };

  it('is written with one statement prepared once and without waiting for the disk (no fsync each 5 s)', () => {
    const state = mkdtempSync(join(tmpdir(), 'tai-alive-'));
    dirs.push(state);
    const db = openStateDb(join(state, STATE_DB_FILE));
    try {
      const store = new RestoreStore(db);
      const prepare = vi.spyOn(db, 'prepare');
      const pragma = vi.spyOn(db, 'pragma');
      for (let i = 0; i < 10; i++) store.touch('r', T0 + i);
      const prepared = (part: string): number => prepare.mock.calls.filter(([sql]) => String(sql).includes(part)).length;
      expect(prepared('alive_at')).toBe(1);
      // The level set around each write by statements prepared once (state-db.ts unsynced), none read by a pragma call.
      expect(prepared('PRAGMA synchronous = NORMAL')).toBe(1);
      expect(pragma).not.toHaveBeenCalled();
      expect(db.pragma('synchronous', { simple: true })).toBe(2); // FULL again after each write
    } finally {
      db.close();
    }
  });

  it('stays at its start through a minute without agents, then moves with an agent and at the end', () => {
    vi.useFakeTimers({ now: T0 });
    const state = mkdtempSync(join(tmpdir(), 'tai-alive-'));
    dirs.push(state);
    const env = { XDG_STATE_HOME: state, HOME: state };
    const record = recordCockpit({ name: 'alive', argv: ['sh'], env, restore: false, now: Date.now }, (why) => {
      throw new Error(why);
    });
    expect(record).toBeDefined();
    const board = createBoard();
    record!.restoreAgents(service, board, () => {});
    const db = openStateDb(join(state, 'tai', STATE_DB_FILE));
    const aliveAt = (): number => (new RestoreStore(db).cockpitsNamed('alive')[0]?.aliveAt ?? NaN) - T0;
    try {
      vi.advanceTimersByTime(60_000);
      expect(aliveAt()).toBe(0);
      board.getState().open({ label: 'work' }, Date.now());
      expect(aliveAt()).toBe(60_000);
      vi.advanceTimersByTime(10_000);
      record!.end(true);
      expect(aliveAt()).toBe(70_000);
    } finally {
      db.close();
    }
  });
});
