import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createBoard } from '../../../store/board.js';
import { startBoardClock, type BoardClock } from '../../../src/io/cockpit/board-clock.js';
import {
  MPLEX_VPANE_LEASE,
  MPLEX_VPANE_ORPHAN_LINGER,
  ORCH_CANCEL_GRACE,
  ORCH_FLUSH_INTERVAL,
  ORCH_IDLE_KILL,
  ORCH_IDLE_WARN,
  ORCH_LINGER,
} from '../../../src/core/policy.js';
import type { Screen } from '../../../src/core/screen.js';

describe('the board clock', () => {
  let clock: BoardClock | undefined;
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000 });
  });
  afterEach(() => {
    clock?.stop();
    vi.useRealTimers();
  });

  it('walks a silent agent through idle, soft stop, hard stop and removal on real timers', () => {
    const board = createBoard();
    const calls: string[] = [];
    const id = board.getState().open({ label: 'silent' }, Date.now());
    board.getState().setCancel(
      id,
      (r) => calls.push(`soft: ${r}`),
      (r) => calls.push(`hard: ${r}`),
    );
    clock = startBoardClock(board);
    const state = () => board.getState().status(Date.now()).agents[0]?.state;

    vi.advanceTimersByTime(ORCH_IDLE_WARN - 1000);
    expect(state()).toBe('running');
    vi.advanceTimersByTime(1000);
    expect(state()).toBe('idle');
    vi.advanceTimersByTime(ORCH_IDLE_KILL - ORCH_IDLE_WARN);
    expect(calls).toEqual(['soft: no event for 300s']);
    vi.advanceTimersByTime(ORCH_CANCEL_GRACE);
    expect(calls).toEqual(['soft: no event for 300s', 'hard: no event for 300s']);
    vi.advanceTimersByTime(ORCH_CANCEL_GRACE);
    expect(state()).toBe('cancelled');
    expect(board.getState().panels).toHaveLength(1);
    vi.advanceTimersByTime(ORCH_LINGER);
    expect(board.getState().panels).toHaveLength(0);
  });

  it('flushes at most 40 times a second however many panels stream', () => {
    const start = Date.now();
    let writes = 0;
    const flushedAt = new Set<number>();
    const screen: Screen = {
      write: () => {
        writes++;
        flushedAt.add(Date.now() - start);
      },
      resize: () => {},
      dispose: () => {},
    };
    const board = createBoard({ cols: 160, rows: 60, createScreen: () => screen });
    const ids = Array.from({ length: 8 }, (_, i) => board.getState().open({ label: `a${i}` }, Date.now()));
    clock = startBoardClock(board);
    for (let ms = 0; ms < 1000; ms++) {
      for (const id of ids) board.getState().emit(id, { type: 'text', text: 'tok ' }, Date.now());
      vi.advanceTimersByTime(1);
    }
    const times = [...flushedAt];
    // The first output is flushed at once, then one flush per ORCH_FLUSH_INTERVAL: 40 in any second.
    expect(times.filter((t) => t < 1000)).toHaveLength(40);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(ORCH_FLUSH_INTERVAL);
    expect(writes).toBe(times.length * ids.length);
  });

  it('sleeps while nothing is pending and no panel is open, and wakes when one opens', () => {
    const board = createBoard({ cols: 160, rows: 60, createScreen: () => ({ write: () => {}, resize: () => {}, dispose: () => {} }) });
    clock = startBoardClock(board);
    expect(vi.getTimerCount()).toBe(0);
    const id = board.getState().open({ label: 'a' }, Date.now());
    expect(vi.getTimerCount()).toBe(1); // the watchdog only: nothing waits to be flushed
    board.getState().emit(id, { type: 'text', text: 'hello\n' }, Date.now());
    expect(vi.getTimerCount()).toBe(2);
    vi.advanceTimersByTime(ORCH_FLUSH_INTERVAL);
    expect(board.counters.flushes).toBe(1);
    expect(vi.getTimerCount()).toBe(1);
    board.getState().finish(id, 'done', 'ok', Date.now());
    vi.advanceTimersByTime(ORCH_LINGER + 1000);
    expect(board.getState().panels).toHaveLength(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('sleeps through a lingering panel until its removal, which happens at the same tick as when ticking every second', () => {
    const board = createBoard();
    const t0 = Date.now();
    const id = board.getState().open({ label: 'a' }, t0);
    clock = startBoardClock(board);
    vi.advanceTimersByTime(2500);
    board.getState().finish(id, 'done', 'ok', Date.now()); // closes at t0 + 2500 + ORCH_LINGER
    vi.advanceTimersByTime(500); // the tick at t0 + 3 s sees nothing live
    let ticks = 0;
    const unsubscribe = board.subscribe(() => ticks++);
    vi.advanceTimersToNextTimer();
    // One wake-up, at the first tick of the one-second grid after the linger ends.
    expect(Date.now() - t0).toBe(3000 + ORCH_LINGER);
    expect(ticks).toBe(1);
    expect(board.getState().panels).toHaveLength(0);
    expect(vi.getTimerCount()).toBe(0);
    unsubscribe();
  });

  it('wakes at once when a panel opens while it sleeps, and supervises the new agent on the same grid', () => {
    const board = createBoard();
    const t0 = Date.now();
    const first = board.getState().open({ label: 'a' }, t0);
    clock = startBoardClock(board);
    vi.advanceTimersByTime(1000);
    board.getState().finish(first, 'done', 'ok', Date.now());
    vi.advanceTimersByTime(1000); // asleep until t0 + 1 s + ORCH_LINGER
    vi.advanceTimersByTime(300);
    const second = board.getState().open({ label: 'b' }, Date.now()); // at t0 + 2.3 s
    const state = () => board.getState().status(Date.now()).agents.find((a) => a.id === second)?.state;
    vi.advanceTimersToNextTimer();
    expect(Date.now() - t0).toBe(3000); // the next tick of the grid, not the removal
    // Idle at the first tick at or after ORCH_IDLE_WARN of silence: t0 + 3 s + ORCH_IDLE_WARN.
    vi.advanceTimersByTime(ORCH_IDLE_WARN - 1);
    expect(state()).toBe('running');
    vi.advanceTimersByTime(1);
    expect(state()).toBe('idle');
  });

  it("sleeps until a feed pane's lease runs out, later when its owner writes, and orphans it on time", () => {
    const board = createBoard({ cols: 160, rows: 60, createScreen: () => ({ write: () => {}, resize: () => {}, dispose: () => {} }) });
    const t0 = Date.now();
    const id = board.getState().open({ kind: 'feed', label: 'ext', header: ' ● ext · running' }, t0);
    clock = startBoardClock(board);
    vi.advanceTimersByTime(10_000);
    board.getState().feed(id, { header: ' ● ext · running · 10s' }, Date.now());
    vi.advanceTimersByTime(ORCH_FLUSH_INTERVAL); // the feed op is published
    vi.advanceTimersToNextTimer();
    expect(Date.now() - t0).toBe(10_000 + MPLEX_VPANE_LEASE);
    expect(board.getState().panels[0]).toMatchObject({ state: 'failed' });
    vi.advanceTimersToNextTimer();
    expect(Date.now() - t0).toBe(10_000 + MPLEX_VPANE_LEASE + MPLEX_VPANE_ORPHAN_LINGER);
    expect(board.getState().panels).toHaveLength(0);
  });

  it('ticks every second while an agent is live, so that its elapsed time is redrawn', () => {
    const board = createBoard();
    board.getState().open({ label: 'a' }, Date.now());
    clock = startBoardClock(board);
    let publishes = 0;
    const unsubscribe = board.subscribe(() => publishes++);
    vi.advanceTimersByTime(10_000);
    expect(publishes).toBe(10);
    unsubscribe();
  });

  it('unseen, walks a silent agent through idle, soft stop, hard stop and removal at the same ticks, waking only for them and every 5 s', () => {
    const board = createBoard();
    board.getState().seenBy?.(() => false);
    const calls: string[] = [];
    const start = Date.now();
    const id = board.getState().open({ label: 'silent' }, start);
    board.getState().setCancel(
      id,
      (r) => calls.push(`soft: ${r}`),
      (r) => calls.push(`hard: ${r}`),
    );
    clock = startBoardClock(board);
    let ticks = 0;
    board.getState().onTick(() => void ticks++);
    const state = () => board.getState().status(Date.now()).agents[0]?.state;
    vi.advanceTimersByTime(ORCH_IDLE_WARN - 1000);
    expect(state()).toBe('running');
    vi.advanceTimersByTime(1000);
    expect(state()).toBe('idle');
    expect(ticks).toBe(ORCH_IDLE_WARN / 5000);
    vi.advanceTimersByTime(ORCH_IDLE_KILL - ORCH_IDLE_WARN - 1000);
    expect(calls).toEqual([]);
    vi.advanceTimersByTime(1000);
    expect(calls).toEqual(['soft: no event for 300s']);
    vi.advanceTimersByTime(ORCH_CANCEL_GRACE);
    expect(calls).toEqual(['soft: no event for 300s', 'hard: no event for 300s']);
    vi.advanceTimersByTime(ORCH_CANCEL_GRACE);
    expect(state()).toBe('cancelled');
    vi.advanceTimersByTime(ORCH_LINGER);
    expect(board.getState().panels).toHaveLength(0);
    expect(ticks).toBeLessThanOrEqual((ORCH_IDLE_KILL + 2 * ORCH_CANCEL_GRACE + ORCH_LINGER) / 5000 + 1);
  });

  it('seen again (a client attached), publishes the headers at once and ticks every second', () => {
    const board = createBoard();
    let seen = false;
    board.getState().seenBy?.(() => seen);
    board.getState().open({ label: 'a' }, Date.now());
    clock = startBoardClock(board);
    let publishes = 0;
    const unsubscribe = board.subscribe(() => publishes++);
    vi.advanceTimersByTime(10_000);
    expect(publishes).toBe(0);
    const before = board.getState().panels[0]!.header;
    seen = true;
    board.getState().seenAgain?.(Date.now());
    expect(publishes).toBe(1);
    expect(board.getState().panels[0]!.header).not.toBe(before);
    expect(board.getState().panels[0]!.header).toContain('10s');
    vi.advanceTimersByTime(10_000);
    expect(publishes).toBe(11);
    unsubscribe();
  });
});
