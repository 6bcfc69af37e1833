import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findLane, laneAgentState, LaneError, makeLane } from '../../../src/io/lanes/lanes.js';
import { LaneStore, type StoredLane } from '../../../src/io/lanes/lane-store.js';
import { AgentsStore } from '../../../src/io/storage/agents-store.js';
import { processStart } from '../../../src/io/process-identity.js';
import { laneDiff, laneInfo } from '../../../src/io/lanes/lane-status.js';
import { mergeLane } from '../../../src/io/lanes/lane-merge.js';
import { dropLane, restartLaneByHand } from '../../../src/io/lanes/lane-end.js';
import { openStateDb } from '../../../src/io/storage/state-db.js';
import { tempRepo, type TempRepo } from '../../helpers/git-repo.js';
import { testEnv } from '../../helpers/test-env.js';

const agent = { kind: 'command', argv: ['sh', '-c', 'true'], label: 'Fix the tests!' };
let repo: TempRepo;
afterEach(() => repo?.cleanup());

/** Runs a small agent in the lane, as a real child process with the lane as its cwd. */
function runIn(dir: string, script: string): void {
  execFileSync('sh', ['-c', script], { cwd: dir, env: testEnv() });
}

describe('making a lane', () => {
  it('makes a worktree on tai/NAME from HEAD inside the common git folder, named from the label', async () => {
    repo = tempRepo();
    const { lane, notes } = await makeLane(repo.db, { cwd: repo.dir, task: 'fix', agent, now: 1000 });
    expect(lane.name).toBe('fix-the-tests');
    expect(lane.branch).toBe('tai/fix-the-tests');
    expect(lane.worktree).toBe(join(repo.git('rev-parse', '--path-format=absolute', '--git-common-dir').trim(), 'tai-lanes', 'fix-the-tests'));
    expect(readFileSync(join(lane.worktree, 'src/a.txt'), 'utf8')).toBe('one\ntwo\nthree\n');
    expect(lane.baseBranch).toBe('main');
    expect(notes).toEqual([]);
    expect(repo.git('status', '--porcelain')).toBe('');
    const second = await makeLane(repo.db, { cwd: repo.dir, task: 'fix', agent, now: 1001 });
    expect(second.lane.name).toBe('fix-the-tests-2');
  });

  it('starts from HEAD when the main checkout is dirty, and says so', async () => {
    repo = tempRepo();
    repo.write('README.md', 'dirty\n');
    const { lane, notes } = await makeLane(repo.db, { cwd: repo.dir, name: 'x', task: 't', agent, now: 1 });
    expect(readFileSync(join(lane.worktree, 'README.md'), 'utf8')).toBe('hello\n');
    expect(notes[0]).toContain('has uncommitted changes: the lane x starts from HEAD');
  });

  it('refuses a name taken, an existing branch, an empty repository, a detached HEAD and a folder outside git, leaving nothing', async () => {
    repo = tempRepo();
    await makeLane(repo.db, { cwd: repo.dir, name: 'a', task: 't', agent, now: 1 });
    await expect(makeLane(repo.db, { cwd: repo.dir, name: 'a', task: 't', agent, now: 2 })).rejects.toThrow('a lane named a already exists');
    repo.git('branch', 'tai/b');
    await expect(makeLane(repo.db, { cwd: repo.dir, name: 'b', task: 't', agent, now: 2 })).rejects.toThrow('the branch tai/b already exists');
    await expect(makeLane(repo.db, { cwd: repo.dir, name: 'Bad Name', task: 't', agent, now: 2 })).rejects.toThrow('"Bad Name" is not a valid lane name');
    repo.git('checkout', '--quiet', '--detach');
    await expect(makeLane(repo.db, { cwd: repo.dir, name: 'c', task: 't', agent, now: 2 })).rejects.toThrow(/HEAD at .* is detached/);
    expect(new LaneStore(repo.db).list().map((l) => l.name)).toEqual(['a']);
    await expect(makeLane(repo.db, { cwd: repo.stateDir, task: 't', agent, now: 2 })).rejects.toThrow(LaneError);
    await expect(makeLane(repo.db, { cwd: repo.stateDir, task: 't', agent, now: 2 })).rejects.toThrow('is not inside one');
    const empty = tempRepo({ commits: false });
    try {
      await expect(makeLane(empty.db, { cwd: empty.dir, task: 't', agent, now: 2 })).rejects.toThrow('has no commits yet');
      expect(new LaneStore(empty.db).list()).toEqual([]);
    } finally {
      empty.cleanup();
    }
  });

  it('removes its row when git worktree add fails', async () => {
    repo = tempRepo();
    // A file where the lanes folder should be makes worktree add fail.
    writeFileSync(join(repo.dir, '.git', 'tai-lanes'), 'in the way');
    await expect(makeLane(repo.db, { cwd: repo.dir, name: 'z', task: 't', agent, now: 1 })).rejects.toThrow('cannot make the lane z');
    expect(new LaneStore(repo.db).list()).toEqual([]);
    expect(repo.git('branch', '--list', 'tai/*')).toBe('');
  });
});

describe('a lane after its agent', () => {
  it('lists, diffs and fast-forwards a lane whose agent edited without committing', async () => {
    repo = tempRepo();
    const { lane } = await makeLane(repo.db, { cwd: repo.dir, name: 'edit', task: 'add a line', agent, now: 1 });
    runIn(lane.worktree, 'echo four >> src/a.txt && echo new > b.txt');
    const info = await laneInfo(repo.db, lane);
    expect(info.stat).toEqual({ files: 2, added: 2, removed: 0 });
    expect(info.uncommitted).toBe(true);
    expect(info.aheadBehind).toEqual({ ahead: 0, behind: 0 });
    const diff = await laneDiff(lane, false);
    expect(diff).toContain('+four');
    expect(diff).toContain('+++ b/b.txt');
    const merged = await mergeLane(repo.db, lane, 5);
    expect(merged.kind).toBe('fast-forward');
    expect(merged.committed).not.toBeNull();
    expect(repo.git('log', '-1', '--format=%s', 'main').trim()).toBe('add a line');
    expect(readFileSync(join(repo.dir, 'src/a.txt'), 'utf8')).toBe('one\ntwo\nthree\nfour\n');
    expect(repo.git('status', '--porcelain')).toBe('');
  });

  it('makes a merge commit when main moved on, without touching the main checkout mid-way', async () => {
    repo = tempRepo();
    const { lane } = await makeLane(repo.db, { cwd: repo.dir, name: 'commits', task: 't', agent, now: 1 });
    runIn(lane.worktree, 'echo lane > lane.txt && git add lane.txt && git commit -qm "lane work"');
    repo.commit('main work', { 'main.txt': 'main\n' });
    const merged = await mergeLane(repo.db, lane, 5);
    expect(merged.kind).toBe('merge commit');
    expect(repo.git('rev-list', '--parents', '-1', 'main').trim().split(' ')).toHaveLength(3);
    expect(readFileSync(join(repo.dir, 'lane.txt'), 'utf8')).toBe('lane\n');
    expect(repo.git('status', '--porcelain')).toBe('');
    expect(new LaneStore(repo.db).get(lane.repo, 'commits')?.mergedAt).toBe(5);
  });

  it('stops on a conflict with the files named and main unchanged', async () => {
    repo = tempRepo();
    const { lane } = await makeLane(repo.db, { cwd: repo.dir, name: 'clash', task: 't', agent, now: 1 });
    runIn(lane.worktree, 'echo lane > README.md && git commit -qam lane');
    const mainHead = repo.commit('main', { 'README.md': 'main\n' });
    await expect(mergeLane(repo.db, lane, 5)).rejects.toThrow(/conflicts with main in 1 file: README.md; nothing was merged/);
    expect(repo.git('rev-parse', 'main').trim()).toBe(mainHead);
    expect(repo.git('status', '--porcelain')).toBe('');
    expect(existsSync(join(repo.dir, '.git', 'MERGE_HEAD'))).toBe(false);
  });

  it('refuses to merge over uncommitted changes to a file the merge touches', async () => {
    repo = tempRepo();
    const { lane } = await makeLane(repo.db, { cwd: repo.dir, name: 'touch', task: 't', agent, now: 1 });
    runIn(lane.worktree, 'echo lane > README.md');
    repo.write('README.md', 'mine\n');
    await expect(mergeLane(repo.db, lane, 5)).rejects.toThrow('has uncommitted changes to a file the merge touches: README.md');
    expect(readFileSync(join(repo.dir, 'README.md'), 'utf8')).toBe('mine\n');
  });

  it('refuses to drop unmerged or uncommitted work without --force, and drops with it', async () => {
    repo = tempRepo();
    const { lane } = await makeLane(repo.db, { cwd: repo.dir, name: 'drop', task: 't', agent, now: 1 });
    runIn(lane.worktree, 'echo x > x.txt && git add x.txt && git commit -qm x && echo y > y.txt');
    await expect(dropLane(repo.db, lane, false)).rejects.toThrow('has 1 commit not merged into main and uncommitted edits in 1 file: nothing was removed');
    expect(existsSync(lane.worktree)).toBe(true);
    expect(await dropLane(repo.db, lane, true)).toMatchObject({ worktree: 'removed', branch: 'deleted', saved: { ref: expect.stringMatching(/^refs\/tai\/drops\//) } });
    expect(existsSync(lane.worktree)).toBe(false);
    expect(repo.git('branch', '--list', 'tai/*')).toBe('');
  });

  it('refuses to drop git-ignored files without --force, naming them, and drops them with it', async () => {
    repo = tempRepo();
    const { lane } = await makeLane(repo.db, { cwd: repo.dir, name: 'ignored', task: 't', agent, now: 1 });
    runIn(lane.worktree, 'printf ".env\\nbuild/\\n" > .gitignore && git add .gitignore && git commit -qm ignore');
    repo.git('merge', '-q', '--ff-only', lane.branch);
    runIn(lane.worktree, 'echo SECRET=1 > .env && mkdir build && echo o > build/out.o');
    await expect(dropLane(repo.db, lane, false)).rejects.toThrow(
      'the lane ignored has 2 git-ignored files or folders (.env, build/): nothing was removed. Merge it (tai lane merge ignored), or drop it with --force to lose that work',
    );
    expect(readFileSync(join(lane.worktree, '.env'), 'utf8')).toBe('SECRET=1\n');
    expect(await dropLane(repo.db, lane, true)).toMatchObject({ worktree: 'removed', branch: 'deleted', saved: { ref: expect.stringMatching(/^refs\/tai\/drops\//) } });
    expect(existsSync(lane.worktree)).toBe(false);
  });

  it('says the worktree is gone when asked for the diff of a lane whose folder was removed by hand', async () => {
    repo = tempRepo();
    const { lane } = await makeLane(repo.db, { cwd: repo.dir, name: 'vanished', task: 't', agent, now: 1 });
    rmSync(lane.worktree, { recursive: true, force: true });
    await expect(laneDiff(lane, false)).rejects.toThrow(
      `the worktree of the lane vanished (${lane.worktree}) is gone (removed by hand?): its branch tai/vanished is kept; tai lane drop vanished forgets the lane`,
    );
  });

  it('drops a clean lane and one whose folder was removed by hand', async () => {
    repo = tempRepo();
    const { lane } = await makeLane(repo.db, { cwd: repo.dir, name: 'gone', task: 't', agent, now: 1 });
    rmSync(lane.worktree, { recursive: true, force: true });
    expect((await laneInfo(repo.db, lane)).missing).toBe(true);
    await expect(mergeLane(repo.db, lane, 2)).rejects.toThrow('is gone (removed by hand?)');
    expect(await dropLane(repo.db, lane, false)).toEqual({ worktree: 'already gone', branch: 'deleted', saved: null });
  });

  it('restarts by hand: edits saved aside as a patch, the worktree back at its last commit', async () => {
    repo = tempRepo();
    const { lane } = await makeLane(repo.db, { cwd: repo.dir, name: 'again', task: 'retry me', agent, now: 1 });
    runIn(lane.worktree, 'echo c > c.txt && git add c.txt && git commit -qm c && echo half >> c.txt');
    const restart = restartLaneByHand(repo.db, lane, repo.stateDir, 10);
    expect(restart.files).toEqual(['c.txt']);
    expect(restart.savedTo).not.toBeNull();
    expect(readFileSync(join(restart.savedTo ?? '', 'changes.patch'), 'utf8')).toContain('+half');
    expect(readFileSync(join(lane.worktree, 'c.txt'), 'utf8')).toBe('c\n');
  });

  it("tells the lane's agent by its pid and start time: a recycled pid, of the agent or of its supervisor, is not the agent", async () => {
    repo = tempRepo();
    const { lane } = await makeLane(repo.db, { cwd: repo.dir, name: 'pid', task: 't', agent, now: 1 });
    const store = new LaneStore(repo.db);
    // A live row whose run key names this test's pid but a start an hour before it: its supervisor is gone, the pid reused.
    const run = `${process.pid}-${Math.round(performance.timeOrigin) - 3_600_000}`;
    new AgentsStore(repo.db).save({ run, id: 3, kind: 'command', label: 'editor', task: 't', state: 'running', startedAt: 1, finishedAt: null, reason: '', recordId: null, chars: 0, exitCode: null, text: '', tools: 0, tokens: 0 });
    store.setAgent(lane.repo, 'pid', run, 3);
    const start = processStart(process.pid) ?? '';
    store.setAgentProcess(lane.repo, 'pid', run, 3, process.pid, String(Number(start) + 1));
    const recycled = store.get(lane.repo, 'pid') as StoredLane;
    expect(laneAgentState(repo.db, recycled)).toEqual({ label: 'editor', state: 'cancelled', live: false, pid: process.pid });
    expect(await dropLane(repo.db, recycled, false)).toEqual({ worktree: 'removed', branch: 'deleted', saved: null });
  });

  it("refuses to drop a lane while its agent's very process runs, naming the agent and tai cancel", async () => {
    repo = tempRepo();
    const { lane } = await makeLane(repo.db, { cwd: repo.dir, name: 'busy', task: 't', agent, now: 1 });
    const store = new LaneStore(repo.db);
    const run = '999999999-1';
    new AgentsStore(repo.db).save({ run, id: 4, kind: 'command', label: 'editor', task: 't', state: 'running', startedAt: 1, finishedAt: null, reason: '', recordId: null, chars: 0, exitCode: null, text: '', tools: 0, tokens: 0 });
    store.setAgent(lane.repo, 'busy', run, 4);
    store.setAgentProcess(lane.repo, 'busy', run, 4, process.pid, processStart(process.pid) ?? null);
    const busy = store.get(lane.repo, 'busy') as StoredLane;
    await expect(dropLane(repo.db, busy, true)).rejects.toThrow(
      `cannot drop the lane busy while its agent #4 (editor, pid ${process.pid}) is running: wait for it to end, or stop it with: tai cancel 4`,
    );
    expect(existsSync(lane.worktree)).toBe(true);
  });

  it('is found by a new process on the same database', async () => {
    repo = tempRepo();
    await makeLane(repo.db, { cwd: repo.dir, name: 'kept', task: 't', agent, now: 1 });
    const other = openStateDb(repo.db.name);
    try {
      expect((await findLane(other, 'kept', repo.dir)).branch).toBe('tai/kept');
      expect((await findLane(other, 'kept', '/')).branch).toBe('tai/kept');
      await expect(findLane(other, 'nope', repo.dir)).rejects.toThrow('no lane named nope');
    } finally {
      other.close();
    }
  });
});
