/**
 * A lane's agent as a real process in a real cockpit (test/helpers/cockpit-process.ts),
 * with `tai lane` run as separate processes of the built CLI: drop and
 * restart are refused while the agent runs, naming it and how to stop it;
 * after `tai cancel` they go on. A restart saves the edits aside, resets the
 * worktree and starts a fresh agent in the cockpit, or here when none runs.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { laneAgentState, makeLane } from '../../src/io/lanes/lanes.js';
import { LaneStore, type StoredLane } from '../../src/io/lanes/lane-store.js';
import { processStart } from '../../src/io/process-identity.js';
import { openStateDb, stateDir, STATE_DB_FILE, type StateDb } from '../../src/io/storage/state-db.js';
import { startCockpit, type CockpitProcess } from '../helpers/cockpit-process.js';
import { tempRepo, type TempRepo } from '../helpers/git-repo.js';
import { runTai, TAI_CLI } from '../helpers/tai-cli.js';
import { until } from '../helpers/until.js';

let repo: TempRepo;
let cockpit: CockpitProcess | undefined;
let db: StateDb | undefined;
afterEach(async () => {
  await cockpit?.stop();
  cockpit = undefined;
  db?.close();
  db = undefined;
  repo?.cleanup();
});

/** A repository, the CLI's environment (its own state and runtime folders) and the CLI's state database. */
function setUp() {
  repo = tempRepo();
  const env = { XDG_STATE_HOME: repo.stateDir, XDG_RUNTIME_DIR: mkdtempSync(join(tmpdir(), 'tai-lane-run-')), TAI_PLEXER_SOCKET: '' };
  db = openStateDb(join(stateDir(env), STATE_DB_FILE));
  const laneOf = (name: string): StoredLane | undefined => new LaneStore(db as StateDb).get(realCommonDir(), name);
  return { env, db, laneOf };
}

function realCommonDir(): string {
  return repo.git('rev-parse', '--path-format=absolute', '--git-common-dir').trim();
}

describe.runIf(existsSync(TAI_CLI))("a lane's agent, running and ended", () => {
  it('refuses drop and restart while the agent runs, naming it and tai cancel; after tai cancel, drop --force removes the lane', async () => {
    const { env, laneOf } = setUp();
    cockpit = await startCockpit(env);
    const spawned = await runTai(
      ['spawn', '--lane', 'live', '--label', 'editor', '--detach', '--socket', cockpit.socket, '--cwd', repo.dir, '--', 'sh', '-c', 'echo edit > e.txt; exec sleep 600'],
      env,
    );
    expect(spawned.code).toBe(0);
    const id = Number(spawned.out.trim());
    // The lane's row gets the agent's pid and start time once its reaper reports it.
    await until(() => laneOf('live')?.agentPid != null, { what: "the agent's pid in the lane's row", explain: cockpit.err });
    const lane = laneOf('live') as StoredLane;
    expect(lane.agentStart).toBe(processStart(lane.agentPid ?? 0));
    await until(() => existsSync(join(lane.worktree, 'e.txt')));
    const refusal = (verb: string): string =>
      `tai lane ${verb}: cannot ${verb} the lane live while its agent #${id} (editor, pid ${lane.agentPid}) is running: wait for it to end, or stop it with: tai cancel ${id}\n`;
    for (const args of [['drop', 'live'], ['drop', 'live', '--force'], ['restart', 'live']]) {
      const r = await runTai(['lane', ...args, '-C', repo.dir], env);
      expect(r.code).toBe(1);
      expect(r.err).toBe(refusal(args[0] ?? ''));
    }
    expect(existsSync(lane.worktree)).toBe(true);
    expect((await runTai(['cancel', String(id), '--socket', cockpit.socket], env)).code).toBe(0);
    await until(() => processStart(lane.agentPid ?? 0) === undefined && laneAgentState(db as StateDb, lane)?.live === false, { what: 'the agent to end' });
    const kept = await runTai(['lane', 'drop', 'live', '-C', repo.dir], env);
    expect(kept.code).toBe(1);
    expect(kept.err).toContain('the lane live has uncommitted edits in 1 file: nothing was removed');
    const dropped = await runTai(['lane', 'drop', 'live', '--force', '-C', repo.dir], env);
    expect(dropped.out).toBe('dropped the lane live: worktree removed, branch tai/live deleted\n');
    expect(existsSync(lane.worktree)).toBe(false);
  });

  it('restarts a lane whose agent died with edits: the patch named, the worktree reset, a fresh agent in the cockpit', async () => {
    const { env, laneOf } = setUp();
    cockpit = await startCockpit(env);
    const mark = join(repo.stateDir, 'died-once');
    // The first run edits a tracked file and dies by SIGKILL; the fresh one writes fresh.txt and stays.
    const script = `if [ -e '${mark}' ]; then echo fresh > fresh.txt; exec sleep 600; else echo half >> README.md; : > '${mark}'; kill -9 $$; fi`;
    const spawned = await runTai(['spawn', '--lane', 're', '--label', 'fixer', '--detach', '--socket', cockpit.socket, '--cwd', repo.dir, '--', 'sh', '-c', script], env);
    expect(spawned.code).toBe(0);
    await until(() => existsSync(mark) && laneOf('re') !== undefined && laneAgentState(db as StateDb, laneOf('re') as StoredLane)?.state === 'failed', {
      what: 'the first agent to die',
      explain: cockpit.err,
    });
    const lane = laneOf('re') as StoredLane;
    expect(readFileSync(join(lane.worktree, 'README.md'), 'utf8')).toBe('hello\nhalf\n');
    const head = repo.git('rev-parse', '--short=7', 'tai/re').trim();
    const r = await runTai(['lane', 'restart', 're', '-C', repo.dir], env);
    expect(r.code).toBe(0);
    const saved = /are saved aside: (\S+\/changes\.patch);/.exec(r.err)?.[1] ?? '';
    expect(saved.startsWith(join(repo.stateDir, 'tai', 'saved-edits', 're-'))).toBe(true);
    expect(r.err.split('\n')[0]).toBe(`tai: the lane re's uncommitted edits (1 file) are saved aside: ${saved}; the worktree is back at ${head}, where a fresh agent starts`);
    expect(readFileSync(saved, 'utf8')).toContain('+half');
    expect(r.err).toMatch(new RegExp(`^tai: agent #(\\d+) \\(fixer\\) runs in the lane re in the cockpit \\(${cockpit.socket}\\); when it ends: tai lane diff re$`, 'm'));
    const fresh = Number(r.out.trim());
    await until(() => existsSync(join(lane.worktree, 'fresh.txt')), { what: 'the fresh agent to write fresh.txt', explain: cockpit.err });
    // The fresh agent started at the lane's last commit: the half edit is gone from the worktree.
    expect(readFileSync(join(lane.worktree, 'README.md'), 'utf8')).toBe('hello\n');
    await until(() => laneOf('re')?.agentPid != null);
    expect(laneOf('re')?.agentId).toBe(fresh);
    expect(laneAgentState(db as StateDb, laneOf('re') as StoredLane)).toMatchObject({ label: 'fixer', state: 'running', live: true });
  });

  it('restarts with no cockpit running: it says so and supervises the fresh agent itself until it ends', async () => {
    const { env, db: state } = setUp();
    const { lane } = await makeLane(state, { cwd: repo.dir, name: 'solo', task: 'again', agent: { kind: 'command', argv: ['sh', '-c', 'echo fresh > fresh.txt'], label: 'solo-agent' }, now: 1 });
    writeFileSync(join(lane.worktree, 'README.md'), 'half\n');
    const r = await runTai(['lane', 'restart', 'solo', '-C', repo.dir], env);
    expect(r.code).toBe(0);
    expect(r.err).toContain("tai: the lane solo's uncommitted edits (1 file) are saved aside: ");
    expect(r.err).toContain('tai: no cockpit runs: the fresh agent runs here, supervised by this command until it ends (Ctrl-C stops it); run tai lane restart inside tai to give it a panel\n');
    expect(readFileSync(join(lane.worktree, 'README.md'), 'utf8')).toBe('hello\n');
    expect(readFileSync(join(lane.worktree, 'fresh.txt'), 'utf8')).toBe('fresh\n');
  });
});
