import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createBoard } from '../../../store/board.js';
import { LocalAgentService } from '../../../src/io/agents/agent-service.js';
import { LaneWatch } from '../../../src/io/lanes/lane-watch.js';
import { LaneStore } from '../../../src/io/lanes/lane-store.js';
import { RecordStore } from '../../../src/io/storage/records.js';
import { AgentsStore } from '../../../src/io/storage/agents-store.js';
import { xtermScreens, type XtermScreen } from '../../../src/io/terminal/screen.js';
import { AgentsFullError } from '../../../src/core/errors.js';
import { SpawnQueue, waitInQueue } from '../../../src/io/agents/spawn/spawn-queue.js';
import { tempRepo, type TempRepo } from '../../helpers/git-repo.js';
import { countedWatches } from '../../helpers/counted-watches.js';
import type { WatchFolder } from '../../../src/io/lanes/lane-tree-watch.js';
import { LANE_STAT_GAP_MS } from '../../../src/core/lanes/stat-trigger.js';
import { LANE_STAT_EVERY_MS } from '../../../src/core/lanes/stat-schedule.js';
import { makeLane } from '../../../src/io/lanes/lanes.js';
import { testEnv } from '../../helpers/test-env.js';

let repo: TempRepo;
let service: LocalAgentService | undefined;
afterEach(() => {
  service?.dispose();
  service = undefined;
  repo?.cleanup();
});

function setup(maxLive?: number) {
  repo = tempRepo();
  const board = createBoard({ createScreen: xtermScreens, cols: 160, rows: 48, ...(maxLive ? { maxLive } : {}) });
  const lanes = new LaneWatch({ db: repo.db, board, run: 'test-run' });
  service = new LocalAgentService({ board, records: new RecordStore(repo.db), agents: new AgentsStore(repo.db), run: 'test-run', lanes });
  return { board, service };
}

async function screenText(board: ReturnType<typeof createBoard>, id: number): Promise<string> {
  while (board.getState().flush(Date.now() + 1_000_000));
  const s = board.getState().screenOf(id) as XtermScreen | undefined;
  if (!s) return '';
  await s.parsed();
  return s.text().join('\n');
}

describe('an agent in a lane', () => {
  it('runs in the worktree, shows the lane and its diff stat in the header and the next steps above the footer', async () => {
    const { board, service } = setup();
    const started = await service.spawn({ cmd: 'spawn', kind: 'command', argv: ['sh', '-c', 'echo four >> src/a.txt; pwd'], label: 'edit it', cwd: repo.dir, lane: '' }, Date.now());
    expect(started.lane).toBe('edit-it');
    const result = await service.poll(started.id, 10_000);
    expect(result?.state).toBe('done');
    expect(result?.text.trim()).toBe(started.cwd);
    expect(readFileSync(join(started.cwd ?? '', 'src/a.txt'), 'utf8')).toBe('one\ntwo\nthree\nfour\n');
    expect(readFileSync(join(repo.dir, 'src/a.txt'), 'utf8')).toBe('one\ntwo\nthree\n');
    await vi.waitFor(() => expect(board.getState().panels.find((p) => p.id === started.id)?.header).toContain('⎇ edit-it · 1 file +1 −0'));
    const text = (await screenText(board, started.id)).replace(/\s+/g, ' ');
    expect(text).toContain('review: tai lane diff edit-it · merge: tai lane merge edit-it · drop: tai lane drop edit-it');
    expect(new LaneStore(repo.db).list()[0]?.agentId).toBe(started.id);
  });

  it('opens the lane diff in a zoomed view pane that closes on q, and leaves other panes alone', async () => {
    const { board, service } = setup();
    const started = await service.spawn({ cmd: 'spawn', kind: 'command', argv: ['sh', '-c', 'echo new > n.txt'], label: 'v', cwd: repo.dir, lane: 'view' }, Date.now());
    await service.poll(started.id, 10_000);
    const view = await service.openLaneDiff(started.id);
    expect(board.getState().zoom).toBe(view);
    expect(board.getState().focus).toBe(view);
    expect(await screenText(board, view)).toContain('+new');
    expect(service.closeView(started.id)).toBe(false);
    expect(service.closeView(view)).toBe(true);
    expect(board.getState().panels.some((p) => p.id === view)).toBe(false);
    await expect(service.openLaneDiff(999)).rejects.toThrow('is not a lane');
  });

  it('refuses a lane outside a git repository and leaves no lane when the agent is refused at the cap', async () => {
    const { board, service } = setup(1);
    await expect(service.spawn({ cmd: 'spawn', kind: 'command', argv: ['sh'], cwd: repo.stateDir, lane: '' }, Date.now())).rejects.toThrow('lanes need a git repository');
    const long = await service.spawn({ cmd: 'spawn', kind: 'command', argv: ['sh', '-c', 'sleep 30'] }, Date.now());
    await expect(service.spawn({ cmd: 'spawn', kind: 'command', argv: ['true'], cwd: repo.dir, lane: 'nope' }, Date.now())).rejects.toThrow(AgentsFullError);
    board.getState().cancel(long.id, 'done with it', Date.now(), 'user');
    expect(new LaneStore(repo.db).list()).toEqual([]);
    expect(repo.git('branch', '--list', 'tai/*')).toBe('');
  });
});

describe('the spawn queue', () => {
  it('starts a spawn refused at the cap once a slot is free, oldest ticket first', async () => {
    const { board, service } = setup(1);
    const first = await service.spawn({ cmd: 'spawn', kind: 'command', argv: ['sh', '-c', 'sleep 30'], label: 'long' }, Date.now());
    await expect(service.spawn({ cmd: 'spawn', kind: 'command', argv: ['true'] }, Date.now())).rejects.toThrow(AgentsFullError);
    const queue = new SpawnQueue(repo.db);
    const older = queue.enqueue('older', '', 1);
    const mine = queue.enqueue('mine', '', 2);
    expect(queue.ahead(mine.id)).toBe(1);
    let tries = 0;
    const waiting = waitInQueue({
      queue,
      ticket: mine,
      attempt: () => {
        tries++;
        return service.spawn({ cmd: 'spawn', kind: 'command', argv: ['true'], label: 'queued' }, Date.now()).catch((e: unknown) => {
          if (e instanceof AgentsFullError) return undefined;
          throw e;
        });
      },
      // Each pause moves the world on: the older ticket leaves, then the long agent is cancelled.
      pause: async () => {
        if (queue.has(older.id)) queue.remove(older.id);
        else board.getState().cancel(first.id, 'make room', Date.now(), 'user');
        await new Promise((resolve) => setImmediate(resolve));
      },
      interrupted: () => false,
    });
    const end = await waiting;
    expect(end.kind).toBe('started');
    expect(tries).toBeGreaterThanOrEqual(1);
    expect(queue.list()).toEqual([]);
  });

  it('ends a queued spawn whose ticket was cancelled', async () => {
    repo = tempRepo();
    const queue = new SpawnQueue(repo.db);
    const ticket = queue.enqueue('x', '', 1);
    queue.remove(ticket.id);
    const end = await waitInQueue({ queue, ticket, attempt: async () => 1, pause: async () => {}, interrupted: () => false });
    expect(end.kind).toBe('cancelled');
  });
});

describe("an unwatched quiet lane's diff stat", () => {
  it('is taken less and less often while nothing changes, and every 5 s again once its agent tells something', async () => {
    repo = tempRepo();
    let now = 1_000_000;
    const board = createBoard({ cols: 160, rows: 48 });
    const log: string[] = [];
    // No watch allowed: the lane falls back to the timer at once.
    const watch = new LaneWatch({ db: repo.db, board, run: 'test-run', now: () => now, watchMax: 0, log: (line) => log.push(line) });
    try {
      const { lane } = await makeLane(repo.db, { cwd: repo.dir, name: 'quiet', task: 't', agent: { kind: 'command', argv: ['true'], label: 'q' }, now });
      const id = board.getState().open({ label: 'q' }, now);
      watch.follow(id, lane);
      await vi.waitFor(() => expect(log).toEqual(['lane quiet: more than 0 folders to watch; its diff stat is taken on a timer instead (every 5 s, backing off to 80 s while quiet)']));
      const taken: number[] = [];
      // The timer's looks, every 5 s of the fake clock; each stat's git (a real child process) answers before the next look.
      const lookAt = async (s: number): Promise<void> => {
        now = 1_000_000 + s * 1000;
        const before = watch.counters.stats;
        watch.refresh();
        if (watch.counters.stats > before) taken.push(s);
        await vi.waitFor(() => expect(watch.counters.statsDone).toBe(watch.counters.stats));
      };
      for (let s = 5; s <= 200; s += 5) await lookAt(s);
      expect(taken).toEqual([5, 10, 20, 40, 80, 160]);
      board.getState().emit(id, { type: 'text', text: 'working\n' }, now);
      await lookAt(205);
      await lookAt(210);
      expect(taken.slice(-2)).toEqual([205, 210]);
    } finally {
      watch.dispose();
    }
  });
});

describe("a watched lane's diff stat", () => {
  // The clock and the timeouts are fake; the files, the inotify watches and git are real.
  let lanes: LaneWatch | undefined;
  afterEach(() => {
    lanes?.dispose();
    lanes = undefined;
    vi.useRealTimers();
  });

  async function watchedLane(options: { watchFolder?: WatchFolder; watchMax?: number } = {}) {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    repo = tempRepo();
    const board = createBoard({ cols: 160, rows: 48 });
    const counted = countedWatches();
    const log: string[] = [];
    const w = (lanes = new LaneWatch({ db: repo.db, board, run: 'test-run', log: (line) => log.push(line), watchFolder: options.watchFolder ?? counted.watchFolder, ...(options.watchMax === undefined ? {} : { watchMax: options.watchMax }) }));
    const { lane } = await makeLane(repo.db, { cwd: repo.dir, name: 'watched', task: 't', agent: { kind: 'command', argv: ['true'], label: 'w' }, now: Date.now() });
    const id = board.getState().open({ label: 'w' }, Date.now());
    w.follow(id, lane);
    const header = (): string => board.getState().panels.find((p) => p.id === id)?.header ?? '';
    const inLane = (...args: string[]): string => execFileSync('git', args, { cwd: lane.worktree, env: testEnv(), encoding: 'utf8' });
    return { board, w, lane, id, log, header, inLane, open: counted.open };
  }

  /** Until the lane is watched (its gitdir, its ref's folder, the worktree, src/) and its first stat shown. */
  async function settled(t: Awaited<ReturnType<typeof watchedLane>>): Promise<void> {
    await vi.waitFor(
      () => {
        expect(t.w.watches).toBe(4);
        expect(t.w.counters.statsDone).toBe(1);
        expect(t.header()).toContain('⎇ watched · no changes');
      },
      { timeout: 5_000 },
    );
    // Past the gap between two stats: the next change is stat once it settles.
    vi.advanceTimersByTime(LANE_STAT_GAP_MS);
  }

  it('shows a new stat soon after a file in the worktree is edited', async () => {
    const t = await watchedLane();
    await settled(t);
    writeFileSync(join(t.lane.worktree, 'src/a.txt'), 'one\ntwo\nthree\nfour\n');
    await vi.waitFor(() => expect(t.header()).toContain('⎇ watched · 1 file +1 −0'), { timeout: 5_000 });
    expect(t.w.counters.stats).toBe(2);
  });

  it('takes a stat when the lane commits, and shows a new file once git tracks it', async () => {
    const t = await watchedLane();
    await settled(t);
    t.inLane('commit', '--quiet', '--allow-empty', '-m', 'nothing');
    await vi.waitFor(() => expect(t.w.counters.statsDone).toBe(2), { timeout: 5_000 });
    writeFileSync(join(t.lane.worktree, 'new.txt'), 'new\n');
    vi.advanceTimersByTime(LANE_STAT_GAP_MS);
    await vi.waitFor(() => expect(t.w.counters.statsDone).toBe(3), { timeout: 5_000 });
    expect(t.header()).toContain('⎇ watched · no changes');
    vi.advanceTimersByTime(LANE_STAT_GAP_MS);
    // Neither git add nor commit writes a file of the worktree: only the watched index and ref tell.
    t.inLane('add', 'new.txt');
    t.inLane('commit', '--quiet', '-m', 'new');
    await vi.waitFor(() => expect(t.header()).toContain('⎇ watched · 1 file +1 −0'), { timeout: 5_000 });
  });

  it('takes a burst of 50 edits over 5 s in a few stats, not 50', async () => {
    const t = await watchedLane();
    await settled(t);
    const before = t.w.counters.stats;
    for (let i = 1; i <= 50; i++) {
      const told = t.w.counters.changes;
      // One file each, so that the kernel cannot merge the events: fifty changes, one every 100 ms.
      writeFileSync(join(t.lane.worktree, `src/burst-${i}.txt`), `line ${i}\n`);
      t.inLane('add', '--intent-to-add', `src/burst-${i}.txt`);
      for (let turn = 0; turn < 10_000 && t.w.counters.changes === told; turn++) await new Promise((resolve) => setImmediate(resolve));
      expect(t.w.counters.changes).toBeGreaterThan(told);
      vi.advanceTimersByTime(100);
    }
    vi.advanceTimersByTime(LANE_STAT_GAP_MS);
    await vi.waitFor(() => expect(t.header()).toContain('⎇ watched · 50 files +50 −0'), { timeout: 5_000 });
    await vi.waitFor(() => expect(t.w.counters.statsDone).toBe(t.w.counters.stats), { timeout: 5_000 });
    expect(t.w.counters.stats - before).toBeGreaterThanOrEqual(1);
    expect(t.w.counters.stats - before).toBeLessThanOrEqual(3);
  });

  it('runs no git at all while the lane rests, however long', async () => {
    const t = await watchedLane();
    await settled(t);
    const before = { stats: t.w.counters.stats, checks: t.w.checks };
    for (let minute = 0; minute < 30; minute++) vi.advanceTimersByTime(60_000);
    expect({ stats: t.w.counters.stats, checks: t.w.checks }).toEqual(before);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('closes every watch when the agent ends, and when the cockpit stops', async () => {
    const t = await watchedLane();
    await settled(t);
    expect(t.open.size).toBe(4);
    t.w.ending(t.id);
    expect(t.open.size).toBe(0);
    expect(t.w.watches).toBe(0);
    const other = t.board.getState().open({ label: 'again' }, Date.now());
    t.w.follow(other, t.lane);
    await vi.waitFor(() => expect(t.open.size).toBe(4), { timeout: 5_000 });
    t.w.dispose();
    expect(t.open.size).toBe(0);
  });

  it('falls back to the timer, said once in the log, when the kernel refuses a watch', async () => {
    const full: WatchFolder = (path) => {
      throw Object.assign(new Error(`ENOSPC: System limit for number of file watchers reached, watch '${path}'`), { code: 'ENOSPC' });
    };
    const t = await watchedLane({ watchFolder: full });
    await vi.waitFor(() => expect(t.log).toHaveLength(1), { timeout: 5_000 });
    expect(t.log[0]).toMatch(/^lane watched: the user's inotify watches are used up \(fs\.inotify\.max_user_watches\): ENOSPC.*; its diff stat is taken on a timer instead/);
    writeFileSync(join(t.lane.worktree, 'src/a.txt'), 'one\n');
    vi.advanceTimersByTime(LANE_STAT_EVERY_MS);
    await vi.waitFor(() => expect(t.header()).toContain('⎇ watched · 1 file +0 −2'), { timeout: 5_000 });
    vi.advanceTimersByTime(4 * LANE_STAT_EVERY_MS);
    expect(t.log).toHaveLength(1);
  });
});

describe('a lane agent ending through the service', () => {
  it('leaves no watch open', async () => {
    repo = tempRepo();
    const board = createBoard({ createScreen: xtermScreens, cols: 160, rows: 48 });
    const { open, watchFolder } = countedWatches();
    const lanes = new LaneWatch({ db: repo.db, board, run: 'test-run', watchFolder });
    service = new LocalAgentService({ board, records: new RecordStore(repo.db), agents: new AgentsStore(repo.db), run: 'test-run', lanes });
    const started = await service.spawn({ cmd: 'spawn', kind: 'command', argv: ['sh', '-c', 'exec sleep 30'], label: 'long', cwd: repo.dir, lane: 'long' }, Date.now());
    await vi.waitFor(() => expect(open.size).toBe(4), { timeout: 5_000 });
    board.getState().cancel(started.id, 'done with it', Date.now(), 'user');
    await service.poll(started.id, 10_000);
    await vi.waitFor(() => expect(open.size).toBe(0), { timeout: 5_000 });
  });
});
