/**
 * A remote agent's lost link held on the board as for a machine outage
 * (docs/remote.md, "Held during a lost link"): the hold files of
 * src/io/host-holds/host-holds.ts (real files; the hold's pid is this live
 * process) matched to a panel by process group, on a real board with the
 * clock passed in: held, the header says so, the wall clock and the idle clock
 * are paused, a stop waits for the host; resumed when the file goes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createBoard } from '../../../store/board.js';
import { ORCH_CANCEL_GRACE, ORCH_IDLE_KILL } from '../../../src/core/policy.js';
import { HOLD_LOOK_MS, lookAtHolds, watchHolds, type HoldCandidate } from '../../../src/io/host-holds/hold-watch.js';
import { clearHold, holdsDirOf, readHolds, writeHold } from '../../../src/io/host-holds/host-holds.js';

const T0 = 1_700_000_000_000;
let dir: string;
beforeEach(() => {
  dir = holdsDirOf(mkdtempSync(join(tmpdir(), 'tai-hold-watch-')));
});
afterEach(() => rmSync(join(dir, '..', '..'), { recursive: true, force: true }));

function setUp(timeoutMs?: number) {
  const board = createBoard();
  const id = board.getState().open({ label: 'command sh @build', ...(timeoutMs === undefined ? {} : { timeoutMs }) }, T0);
  const calls = { soft: [] as string[], hard: [] as string[] };
  board.getState().setCancel(id, (r) => calls.soft.push(r), (r) => calls.hard.push(r));
  const held = new Map<number, string>();
  const candidates = [{ panel: id, label: 'command sh @build', pgid: process.pid, remote: true }];
  const look = (now: number): void => lookAtHolds(board, candidates, held, readHolds(dir), dir, now);
  const view = () => board.getState().panels.find((p) => p.id === id);
  const lose = (since: number): void => writeHold({ host: 'build', pid: process.pid, since, outageFile: join(dir, 'x.outage') }, dir);
  return { board, id, calls, look, view, lose };
}

describe('a panel whose remote link is lost', () => {
  it('is held while its hold file lasts: waiting for the host, no timeout and no idle cancel, and runs again after it', () => {
    const { board, id, look, view, lose } = setUp(30_000);
    look(T0 + 5_000);
    expect(view()?.state).toBe('running');
    lose(T0 + 10_000);
    look(T0 + 10_000);
    expect(view()?.state).toBe('waiting');
    expect(view()?.header).toContain('waiting for build');
    expect(readHolds(dir)[0]?.panel).toEqual({ panel: id, label: 'command sh @build' });
    // Far past the wall clock and the idle limit: nothing fires while held.
    const late = T0 + 10_000 + ORCH_IDLE_KILL + 60_000;
    board.getState().tick(late);
    expect(view()?.state).toBe('waiting');
    clearHold(process.pid, dir);
    look(late);
    expect(view()?.state).toBe('running');
    // The 20 s of wall clock left when it was held are left now.
    board.getState().tick(late + 19_000);
    expect(view()?.state).toBe('running');
    board.getState().tick(late + 20_000);
    expect(board.getState().status(late + 20_000).agents[0]?.reason).toBe('time limit reached (30s)');
  });

  it('keeps a stop asked while held for the host: no hard stop until the hold ends, then the whole grace', () => {
    const { board, id, calls, look, view, lose } = setUp();
    lose(T0);
    look(T0);
    expect(board.getState().cancel(id, 'cancelled by the user', T0 + 1_000)).toBe(true);
    expect(calls.soft).toEqual(['cancelled by the user']);
    board.getState().tick(T0 + 1_000 + 10 * ORCH_CANCEL_GRACE);
    expect(calls.hard).toEqual([]);
    expect(view()?.state).toBe('waiting');
    clearHold(process.pid, dir);
    const back = T0 + 1_000 + 10 * ORCH_CANCEL_GRACE;
    look(back);
    board.getState().tick(back + ORCH_CANCEL_GRACE - 1);
    expect(calls.hard).toEqual([]);
    board.getState().tick(back + ORCH_CANCEL_GRACE);
    expect(calls.hard).toEqual(['cancelled by the user']);
  });

  it('forgets the hold of a process that died while it waited', () => {
    writeHold({ host: 'build', pid: 2 ** 22 + 17, since: T0, outageFile: 'x' }, dir);
    expect(readHolds(dir)).toEqual([]);
  });
});

describe('the watch of the hold files', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A board with one agent's panel, the watch over it with the clock faked, and its reads counted. */
  function watching(remote: boolean) {
    vi.useFakeTimers({ now: T0 });
    const board = createBoard();
    const id = board.getState().open({ label: 'command sh' }, T0);
    let candidates: HoldCandidate[] = [{ panel: id, label: 'command sh', pgid: process.pid, remote }];
    const reads: string[] = [];
    const stop = watchHolds(board, dir, () => candidates, Date.now, (d) => (reads.push(d), readHolds(d)));
    // The board's second, as the cockpit's clock ticks it: each publishes the header's elapsed time.
    const seconds = (n: number): void => {
      for (let i = 0; i < n; i++) {
        vi.advanceTimersByTime(1_000);
        board.getState().tick(Date.now());
      }
    };
    return { board, id, reads, stop, seconds, set: (c: HoldCandidate[]) => (candidates = c) };
  }

  it('neither reads the folder nor keeps a timer through a minute of local agents only', () => {
    const { reads, stop, seconds } = watching(false);
    seconds(60);
    expect(reads).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
    stop();
  });

  it('looks each second while a remote agent runs, and sleeps again once none does', () => {
    const { reads, stop, set } = watching(true);
    vi.advanceTimersByTime(3 * HOLD_LOOK_MS);
    expect(reads).toHaveLength(3);
    set([]);
    vi.advanceTimersByTime(60 * HOLD_LOOK_MS);
    expect(reads).toHaveLength(3);
    expect(vi.getTimerCount()).toBe(0);
    stop();
  });

  it("wakes for a remote agent that starts after the watch, at the board's next change", () => {
    const { board, reads, stop, set, seconds } = watching(false);
    seconds(5);
    const remote = board.getState().open({ label: 'command sh @build' }, Date.now());
    set([{ panel: remote, label: 'command sh @build', pgid: process.pid, remote: true }]);
    seconds(2);
    expect(reads.length).toBeGreaterThanOrEqual(1);
    stop();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('holds a remote panel whose hold file appears, and keeps looking until the hold ends', () => {
    const { board, id, reads, stop, set } = watching(true);
    writeHold({ host: 'build', pid: process.pid, since: T0, outageFile: join(dir, 'x.outage') }, dir);
    vi.advanceTimersByTime(HOLD_LOOK_MS);
    expect(board.getState().panels.find((p) => p.id === id)?.state).toBe('waiting');
    // Even with no candidate said to be remote, a held panel is looked after until its file goes.
    set([{ panel: id, label: 'command sh', pgid: process.pid, remote: false }]);
    vi.advanceTimersByTime(HOLD_LOOK_MS);
    const before = reads.length;
    clearHold(process.pid, dir);
    vi.advanceTimersByTime(HOLD_LOOK_MS);
    expect(reads.length).toBe(before + 1);
    expect(board.getState().panels.find((p) => p.id === id)?.state).toBe('running');
    vi.advanceTimersByTime(10 * HOLD_LOOK_MS);
    expect(reads.length).toBe(before + 1);
    stop();
  });
});
