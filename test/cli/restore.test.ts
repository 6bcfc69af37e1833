/**
 * A cockpit that dies is restored (docs/restore.md), with the built CLI and
 * real processes on a real state database: cockpits in one process (nothing
 * drawn) named with -s, command agents spawned into them, then the cockpit
 * SIGKILLed, or every process of it killed at once (a reboot), or ended with
 * tai kill; the next `tai -s NAME` brings back (or not) the panels with their
 * old transcripts and the seam. Bad input: a launch row that does not parse,
 * a cockpit recorded on another machine, a folder replaced since.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { runningCockpits } from '../../src/io/link/link-place.js';
import { processAlive } from '../../src/io/socket/socket-path.js';
import { INTERRUPTED_PROMPT, SEAM } from '../../src/core/restore/restore-plan.js';
import { endCockpits } from '../helpers/cockpit-servers.js';
import { runTai, TAI_CLI } from '../helpers/tai-cli.js';
import { testEnv } from '../helpers/test-env.js';
import { until } from '../helpers/until.js';
import { tempRepo } from '../helpers/git-repo.js';

const dir = mkdtempSync(join(tmpdir(), 'tai-restore-'));
const env = { XDG_STATE_HOME: join(dir, 'state'), XDG_RUNTIME_DIR: join(dir, 'run'), TAI_ORCH_PANELS: '0', TAI_RESTORE: '1' };
mkdirSync(env.XDG_RUNTIME_DIR, { recursive: true, mode: 0o700 });
const dbPath = join(env.XDG_STATE_HOME, 'tai', 'tai.db');

interface Started {
  readonly child: ChildProcess;
  err(): string;
  readonly exited: Promise<void>;
}

const started: Started[] = [];

/** A named cockpit in one process, its main program `sleep`, in `cwd`; resolves once its control socket is on its card. */
async function cockpit(name: string, cwd: string = dir): Promise<Started> {
  const child = spawn(process.execPath, [TAI_CLI, '-s', name, '--', 'sleep', '600'], { cwd, env: testEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  child.stdout?.resume();
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  const s = { child, err: () => err, exited };
  started.push(s);
  await until(() => runningCockpits(testEnv(env)).some((c) => c.name === name && c.control !== undefined && c.pid === child.pid), { what: `cockpit ${name} listening`, timeout: 20_000, explain: () => err });
  return s;
}

/** A query on the state database, read fresh each time. */
function query<T>(sql: string, ...params: unknown[]): T[] {
  const db = new Database(dbPath, { readonly: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

function write(sql: string, ...params: unknown[]): void {
  const db = new Database(dbPath);
  try {
    db.prepare(sql).run(...params);
  } finally {
    db.close();
  }
}

/** The whole stored transcript of every agent of run `run` with panel id `id`. */
function transcript(run: string, id: number): string {
  return query<{ text: string }>('SELECT text FROM transcript_parts WHERE run = ? AND id = ? ORDER BY seq', run, id).map((p) => p.text).join('');
}

function runOf(pid: number | undefined): string {
  return query<{ run: string }>('SELECT run FROM cockpits WHERE pid = ? ORDER BY started_at DESC', pid)[0]?.run ?? '';
}

/** A command agent that says `word` and its pid, then sleeps: it is live when the cockpit dies. */
async function agent(name: string, word: string, cwd?: string): Promise<number> {
  const r = await runTai(['spawn', '-t', name, '--detach', '--label', word, ...(cwd ? ['--cwd', cwd] : []), '--', 'sh', '-c', `echo said-${word}; echo pid $$; exec sleep 300`], env);
  expect(r.code, r.err).toBe(0);
  return Number(r.out.trim());
}

/** The pid an agent printed, once its transcript holds it. */
async function agentPid(run: string, id: number): Promise<number> {
  let pid = 0;
  await until(() => {
    pid = Number(/pid (\d+)/.exec(transcript(run, id))?.[1] ?? 0);
    return pid > 0;
  }, { what: `agent ${id}'s pid in its transcript` });
  return pid;
}

/** Every process under `root` (its children, theirs, ...), read from /proc. */
function tree(root: number): number[] {
  const parent = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // Gone while read.
    }
  }
  const found = [root];
  for (let i = 0; i < found.length; i++) for (const [pid, ppid] of parent) if (ppid === found[i]) found.push(pid);
  return found;
}

/** The agents a cockpit's status lists. */
async function statusOf(name: string): Promise<{ id: number; label: string; state: string; reason: string }[]> {
  const r = await runTai(['status', '-t', name, '--json'], env);
  expect(r.code, r.err).toBe(0);
  return (JSON.parse(r.out) as { agents: { id: number; label: string; state: string; reason: string }[] }).agents;
}

/** Processes a SIGKILLed cockpit left behind (its main program, `sleep`): ended after each test. */
const orphans: number[] = [];

/** SIGKILLs a cockpit alone, as the OOM killer would; what it leaves is ended after the test. */
async function crash(s: Started): Promise<void> {
  orphans.push(...tree(s.child.pid ?? 0).filter((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('sleep\u0000600')));
  s.child.kill('SIGKILL');
  await s.exited;
}

afterEach(async () => {
  await endCockpits(env);
  for (const pid of orphans.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone already (an agent its reaper stopped).
    }
  }
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a cockpit restored after it died', () => {
  it('SIGKILLed with command agents running: tai ls lists it, and the next tai -s NAME gives back their panels with the old transcript, the seam and tai restart ID', async () => {
    const first = await cockpit('crash');
    const run = runOf(first.child.pid);
    const ids = [await agent('crash', 'alpha'), await agent('crash', 'beta')];
    const pids = [await agentPid(run, ids[0] ?? 0), await agentPid(run, ids[1] ?? 0)];
    await crash(first);
    await until(() => pids.every((p) => !processAlive(p)), { what: 'the reapers stopped the agents' });
    await until(() => !processAlive(first.child.pid ?? 0), { what: 'the cockpit gone' });
    const ls = await runTai(['ls'], env);
    expect(ls.out).toMatch(/^crash +- +sleep 600 +\S+ +ended, 2 agents to restore \(tai attach crash\) +- +\d+s$/m);

    const second = await cockpit('crash');
    await until(() => second.err().includes('cockpit crash restored after it ended'), { what: 'the restore said', explain: second.err });
    const agents = await statusOf('crash');
    expect(agents.map((a) => a.label).sort()).toEqual(['alpha', 'beta']);
    for (const a of agents) {
      expect(a.state).toBe('cancelled');
      expect(a.reason).toBe(`ended with the cockpit: a command agent cannot resume a session. tai restart ${a.id} starts it again from its stored launch`);
    }
    const newRun = runOf(second.child.pid);
    const alpha = agents.find((a) => a.label === 'alpha');
    const text = transcript(newRun, alpha?.id ?? 0);
    expect(text).toContain('said-alpha');
    expect(text.indexOf(SEAM)).toBeGreaterThan(text.indexOf('said-alpha'));
    const logs = await runTai(['logs', String(alpha?.id)], env);
    expect(logs.out).toContain('said-alpha');
    expect(logs.out).toContain(SEAM);

    // tai restart ID: the same agent again from its stored launch, in this cockpit.
    const restarted = await runTai(['restart', String(alpha?.id), '-t', 'crash'], env);
    expect(restarted.code, restarted.err).toBe(0);
    const newId = Number(restarted.out.trim());
    expect(restarted.err).toContain(`started again from the stored launch of agent ${alpha?.id}`);
    await until(() => transcript(newRun, newId).includes('said-alpha'), { what: 'the restarted agent speaks' });
    expect((await statusOf('crash')).find((a) => a.id === newId)).toMatchObject({ label: 'alpha', state: 'running' });
    expect((await runTai(['ls'], env)).out).not.toContain('to restore');
  }, 60_000);

  it('after a simulated reboot (every process of the cockpit killed at once, reapers included) restores it the same', async () => {
    const first = await cockpit('reboot');
    const run = runOf(first.child.pid);
    const id = await agent('reboot', 'gamma');
    const pid = await agentPid(run, id);
    const all = tree(first.child.pid ?? 0);
    expect(all.length).toBeGreaterThan(2); // the cockpit, its main program, the reaper, the agent
    for (const p of all) process.kill(p, 'SIGKILL');
    await first.exited;
    await until(() => all.every((p) => !processAlive(p)) && !processAlive(pid), { what: 'every process gone' });
    const second = await cockpit('reboot');
    await until(() => second.err().includes('cockpit reboot restored after it ended: #1 gamma ended with the cockpit (tai restart 1)'), { what: 'the restore said', explain: second.err });
    expect(transcript(runOf(second.child.pid), 1)).toContain('said-gamma');
  }, 60_000);

  it('ended with tai kill is not restored', async () => {
    const first = await cockpit('killed');
    const run = runOf(first.child.pid);
    await agentPid(run, await agent('killed', 'delta'));
    expect((await runTai(['kill', 'killed'], env)).code).toBe(0);
    await first.exited;
    expect((await runTai(['ls'], env)).out).not.toContain('killed');
    const second = await cockpit('killed');
    expect(await statusOf('killed')).toEqual([]);
    expect(second.err()).not.toContain('restored');
    expect(query<{ state: string }>('SELECT state FROM cockpits WHERE run = ?', run)).toEqual([{ state: 'ended' }]);
  }, 60_000);

  it('discards a cockpit listed to restore with tai kill NAME: the next tai -s NAME starts afresh', async () => {
    const first = await cockpit('unwanted');
    await agentPid(runOf(first.child.pid), await agent('unwanted', 'eta'));
    await crash(first);
    await until(() => !processAlive(first.child.pid ?? 0), { what: 'the cockpit gone' });
    const killed = await runTai(['kill', 'unwanted'], env);
    expect(killed).toMatchObject({ code: 0, out: "cockpit unwanted was not running; it is marked ended and will not be restored (the transcripts of its 1 agent stay: tai logs)\n" });
    expect((await runTai(['ls'], env)).out).not.toContain('unwanted');
    await cockpit('unwanted');
    expect(await statusOf('unwanted')).toEqual([]);
  }, 60_000);

  it("restarts a lane's agent that ended with the cockpit in its lane, its uncommitted edits saved aside first", async () => {
    const repo = tempRepo();
    const first = await cockpit('laned');
    const run = runOf(first.child.pid);
    const r = await runTai(['spawn', '-t', 'laned', '--detach', '--lane', 'fix', '--label', 'editor', '--cwd', repo.dir, '--', 'sh', '-c', 'echo edit >> README.md; echo said-lane; echo pid $$; exec sleep 300'], env);
    expect(r.code, r.err).toBe(0);
    await agentPid(run, Number(r.out.trim()));
    await crash(first);
    const second = await cockpit('laned');
    await until(() => second.err().includes('cockpit laned restored after it ended: #1 editor ended with the cockpit (tai restart 1)'), { what: 'the restore said', explain: second.err });
    const restarted = await runTai(['restart', '1', '-t', 'laned'], env);
    expect(restarted.code, restarted.err).toBe(0);
    expect(restarted.err).toMatch(/tai: the lane fix's uncommitted edits \(1 file\) are saved aside: \S+\/changes\.patch; the worktree is back at [0-9a-f]{7}, where a fresh agent starts/);
    const id = Number(restarted.out.trim().split('\n').at(-1));
    await until(() => transcript(runOf(second.child.pid), id).includes('said-lane'), { what: 'the fresh agent in the lane' });
    repo.cleanup();
  }, 60_000);

  it('says, and does not start again, an agent whose folder was replaced since, and names a launch row that does not parse, leaving it as it was', async () => {
    const work = mkdtempSync(join(dir, 'work-'));
    const first = await cockpit('changed');
    const run = runOf(first.child.pid);
    await agentPid(run, await agent('changed', 'moved', work));
    await agentPid(run, await agent('changed', 'broken'));
    await crash(first);
    renameSync(work, `${work}.old`);
    mkdirSync(work);
    write("UPDATE launches SET launch = '{oops' WHERE run = ? AND id = 2", run);
    const second = await cockpit('changed');
    await until(() => second.err().includes('cockpit changed restored after it ended'), { what: 'the restore said', explain: second.err });
    expect(second.err()).toContain(`agent 2 of cockpit changed was not restored: its stored launch is not JSON; its row is kept as it was`);
    const [moved] = await statusOf('changed');
    expect(moved?.reason).toContain(`its folder ${work} is not the one it started in (removed and made again since), so it was not started again`);
    expect(query<{ launch: string }>('SELECT launch FROM launches WHERE run = ? AND id = 2', run)).toEqual([{ launch: '{oops' }]);
  }, 60_000);

  it('refuses a cockpit recorded on another machine, changing nothing of it', async () => {
    const first = await cockpit('far');
    const run = runOf(first.child.pid);
    await agentPid(run, await agent('far', 'epsilon'));
    await crash(first);
    write("UPDATE cockpits SET machine = 'another-machine' WHERE run = ?", run);
    const second = await cockpit('far');
    await until(() => second.err().includes('cockpit far was recorded on another machine (machine id another-machine): it is not restored here'), { what: 'the refusal', explain: second.err });
    expect(await statusOf('far')).toEqual([]);
    expect(query('SELECT machine, state FROM cockpits WHERE run = ?', run)).toEqual([{ machine: 'another-machine', state: 'running' }]);
  }, 60_000);

  it('starts a resumable agent again with its session, the one message and the wall clock it had left', async () => {
    const first = await cockpit('resume');
    const run = runOf(first.child.pid);
    const fixture = join(import.meta.dirname, '..', 'fixtures', 'restore-claude.mjs');
    const r = await runTai(['spawn', '-t', 'resume', '--detach', '--kind', 'claude', '--timeout', '1800', '--prompt', 'fix the bug', '--', process.execPath, fixture], env);
    expect(r.code, r.err).toBe(0);
    await until(() => transcript(run, 1).includes('fix the bug'), { what: 'the agent mid-turn' });
    await crash(first);
    // The agent had run 20 of its 30 minutes, and reported its session (its decoder's `session` event).
    const [row] = query<{ launch: string; started_at: number }>('SELECT launch, started_at FROM launches WHERE run = ? AND id = 1', run);
    const launch = JSON.parse(row?.launch ?? '{}') as Record<string, unknown>;
    write('UPDATE launches SET launch = ? WHERE run = ? AND id = 1', JSON.stringify({ ...launch, sessionId: 'sess-before' }), run);
    write('UPDATE cockpits SET alive_at = ? WHERE run = ?', (row?.started_at ?? 0) + 20 * 60_000, run);
    const second = await cockpit('resume');
    await until(() => second.err().includes('#1 claude'), { what: 'the restore said', explain: second.err });
    const newRun = runOf(second.child.pid);
    await until(() => transcript(newRun, 1).includes('argv'), { what: 'the resumed agent speaks', explain: second.err });
    const text = transcript(newRun, 1);
    expect(text.indexOf('fix the bug')).toBeLessThan(text.indexOf(SEAM));
    expect(text).toContain(`${SEAM} resuming session sess-before with 600 s of its wall clock left; if it cannot resume, tai restart 1 starts it afresh`);
    expect(text).toContain(JSON.stringify(INTERRUPTED_PROMPT).slice(1, 40));
    const [restored] = query<{ launch: string; restored_from: string }>('SELECT launch, restored_from FROM launches WHERE run = ? AND id = 1', newRun);
    expect(restored?.restored_from).toBe(`${run}/1`);
    expect(JSON.parse(restored?.launch ?? '{}')).toMatchObject({ kind: 'claude', argv: [process.execPath, fixture], prompt: 'fix the bug', limitMs: 1_800_000, spentMs: 1_200_000 });
  }, 60_000);
});
