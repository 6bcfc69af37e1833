/**
 * The restore with the real CLIs (docs/restore.md): a named cockpit with a
 * Claude Code, a Codex and an ACP agent (the Node codex-acp), each mid-turn
 * against the fake model server, is SIGKILLed; its agents die with it (their
 * reapers). `tai -s NAME` again restores it: each agent resumes its own
 * session (the fake server sees the earlier prompt in the resumed request,
 * with the message that it was interrupted) and ends done; each panel's
 * transcript (what `tai logs` and the panel show) holds the old turn, the
 * seam and the new one. The second test does it as a person does: the
 * cockpit's server under a client in a real pty, the server SIGKILLed, then
 * `tai attach NAME` restores it and its panels draw the old turn (its task
 * line), the seam and the new answer.
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import pty from 'node-pty';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SEAM } from '../../src/core/restore/restore-plan.js';
import { parseLaunch } from '../../src/core/restore/launch.js';
import { RestoreStore } from '../../src/io/restore/restore-store.js';
import { openStateDb } from '../../src/io/storage/state-db.js';
import { FINAL_TEXT, startFakeModelServer, type FakeModelServer } from '../helpers/fake-model-server.js';
import { runningCockpits } from '../../src/io/link/link-place.js';
import { alive, notInstalled, probeEnv, ROOT, runTai, scratch, setupCli, type RealCli, type TaiProcess } from '../helpers/real-agents.js';
import { isSleep, leftovers, until } from './real-run.js';

const missing = notInstalled();
const NAME = 'restore-real';
/** The CLIs of the cockpit, each with a word only its first prompt holds. */
const AGENTS: readonly { readonly cli: RealCli; readonly marker: string }[] = [
  { cli: 'claude', marker: 'heron-claude' },
  { cli: 'codex', marker: 'heron-codex' },
  { cli: 'codex-acp-2', marker: 'heron-acp' },
];

let server: FakeModelServer | undefined;
let place: ReturnType<typeof scratch> | undefined;
const cockpits: TaiProcess[] = [];
const clients: pty.IPty[] = [];
afterEach(async () => {
  for (const c of cockpits.splice(0)) c.signal('SIGKILL');
  for (const c of clients.splice(0)) c.kill('SIGKILL');
  // A drawn cockpit's server is a process of its own: ended by its card's pid.
  for (const c of place === undefined ? [] : runningCockpits(cardEnv(place.dir))) if (c.name === NAME) process.kill(c.pid, 'SIGKILL');
  // The cockpits' main programs (sleep) outlive a SIGKILLed cockpit: ended here, by pid.
  for (const pid of place === undefined ? [] : leftovers(place.dir)) if (isSleep(pid)) process.kill(pid, 'SIGKILL');
  await server?.close();
  if (place !== undefined) rmSync(place.dir, { recursive: true, force: true });
  server = undefined;
  place = undefined;
});

/** The environment that finds a run's cockpit cards. */
const cardEnv = (dir: string): NodeJS.ProcessEnv => ({ XDG_RUNTIME_DIR: join(dir, 'run') });

/** A cockpit `tai -s NAME -- sleep` (undrawn: its stdout a pipe) and its socket, once it listens. */
async function cockpit(env: Record<string, string>, project: string, runtime: string): Promise<{ tai: TaiProcess; socket: string }> {
  const tai = runTai(['-s', NAME, '--', 'sleep', '100000'], env, project);
  cockpits.push(tai);
  const socket = join(runtime, 'tai', `tai-${tai.pid}.sock`);
  await until(() => existsSync(socket), 30_000);
  return { tai, socket };
}

/** The session ids stored for the live launches of the cockpit of `pid`. */
function storedSessions(stateHome: string, pid: number): string[] {
  const db = openStateDb(join(stateHome, 'tai', 'tai.db'));
  try {
    const store = new RestoreStore(db);
    const run = store.runOfPid(pid);
    if (run === undefined) return [];
    return store.liveLaunches(run).map((row) => parseLaunch(row.launch)).flatMap((l) => ('problem' in l || l.sessionId === undefined ? [] : [l.sessionId]));
  } finally {
    db.close();
  }
}

describe.skipIf(missing !== undefined)(`a cockpit of real agents restored after a SIGKILL${missing ? ` (skipped: ${missing})` : ''}`, () => {
  it('resumes Claude Code, Codex and codex-acp in their own sessions: the server sees each earlier prompt, each ends done, each panel shows the old turn, the seam and the new', async () => {
    server = await startFakeModelServer({ mode: 'slow', slowMs: 1_000 });
    place = scratch();
    const { home, project, dir } = place;
    const runtime = join(dir, 'run');
    mkdirSync(runtime, { mode: 0o700 });
    const stateHome = join(dir, 'state');
    const setups = AGENTS.map((a) => ({ ...a, setup: setupCli(a.cli, server?.url ?? '', home) }));
    const env: Record<string, string> = { HOME: home, XDG_STATE_HOME: stateHome, XDG_RUNTIME_DIR: runtime, TAI_REAL_AGENT_RUN: dir, ...probeEnv(server.url) };
    for (const s of setups) Object.assign(env, s.setup.env);

    const first = await cockpit(env, project, runtime);
    for (const { setup, marker } of setups) {
      const spawned = await runTai(['spawn', '--socket', first.socket, '--detach', '--kind', setup.kind, '--timeout', '600', '--prompt', `run echo tai-tool-ok; remember ${marker}`, '--', ...setup.argv], env, project).done;
      expect(spawned.code, spawned.stderr).toBe(0);
    }
    // Mid-turn: each CLI has sent its prompt (the answer streams a word a second), and each session id is stored.
    const seen = (marker: string): boolean => server?.requests.some((r) => r.provider !== 'other' && JSON.stringify(r.body).includes(marker)) ?? false;
    await until(() => AGENTS.every((a) => seen(a.marker)), 120_000);
    await until(() => storedSessions(stateHome, first.tai.pid).length === AGENTS.length, 30_000);
    const before = server.requests.length;

    first.tai.signal('SIGKILL');
    // Not `done`: its orphaned main program holds the pipes open.
    await until(() => !alive(first.tai.pid), 30_000);
    // Every agent died with it (their reapers): only the orphaned main program is left.
    await until(() => leftovers(dir).filter((pid) => !isSleep(pid)).length === 0, 30_000);
    server.setMode('ok');

    const second = await cockpit(env, project, runtime);
    let agents: { id: number; state: string }[] = [];
    await vi.waitFor(async () => {
      const status = await runTai(['status', '--json', '--socket', second.socket], env, project).done;
      agents = status.code === 0 ? (JSON.parse(status.stdout) as { agents: { id: number; state: string }[] }).agents : [];
      if (agents.length !== AGENTS.length || agents.some((a) => a.state === 'running' || a.state === 'queued')) throw new Error(`not ended yet: ${status.stdout}${status.stderr}`);
    }, { timeout: 240_000, interval: 1_000 });
    expect(agents.map((a) => a.state), JSON.stringify(agents)).toEqual(['done', 'done', 'done']);

    const resumed = server.requests.slice(before).filter((r) => r.provider !== 'other').map((r) => JSON.stringify(r.body));
    for (const { cli, marker } of AGENTS) {
      // The resumed request holds the first prompt (the history) and the message that it was interrupted.
      expect(resumed.some((body) => body.includes(marker) && body.includes('Your session was interrupted')), `${cli}: no resumed request with its history`).toBe(true);
    }
    for (const [i, { id }] of agents.entries()) {
      const logs = await runTai(['logs', `${second.tai.pid}/${id}`], env, project).done;
      expect(logs.code, logs.stderr).toBe(0);
      const text = logs.stdout;
      const marker = AGENTS.find((a) => text.includes(a.marker))?.marker;
      expect(marker, `panel ${i + 1} shows no old turn:\n${text}`).toBeDefined();
      const seam = text.indexOf(SEAM);
      expect(seam, text).toBeGreaterThan(text.indexOf(marker ?? ''));
      expect(text.slice(seam)).toContain(FINAL_TEXT);
      expect(text.slice(seam)).toContain('done');
    }
  }, 600_000);

  it('with its server SIGKILLed under a drawn client, tai attach NAME restores it: the panels draw the old turn, the seam and the new answer', async () => {
    server = await startFakeModelServer({ mode: 'slow', slowMs: 1_000 });
    place = scratch();
    const { home, project, dir } = place;
    const runtime = join(dir, 'run');
    mkdirSync(runtime, { mode: 0o700 });
    const setups = AGENTS.map((a) => ({ ...a, setup: setupCli(a.cli, server?.url ?? '', home) }));
    const env: Record<string, string> = { HOME: home, XDG_STATE_HOME: join(dir, 'state'), XDG_RUNTIME_DIR: runtime, TAI_REAL_AGENT_RUN: dir, ...probeEnv(server.url) };
    for (const s of setups) Object.assign(env, s.setup.env);
    const first = client(['-s', NAME, '--', 'sleep', '100000'], env, project);
    await until(() => runningCockpits(env).some((c) => c.name === NAME && c.control !== undefined), 30_000);
    for (const { setup, marker } of setups) {
      const spawned = await runTai(['spawn', '-t', NAME, '--detach', '--kind', setup.kind, '--timeout', '600', '--prompt', `run echo tai-tool-ok; remember ${marker}`, '--', ...setup.argv], env, project).done;
      expect(spawned.code, spawned.stderr).toBe(0);
    }
    const seen = (marker: string): boolean => server?.requests.some((r) => r.provider !== 'other' && JSON.stringify(r.body).includes(marker)) ?? false;
    await until(() => AGENTS.every((a) => seen(a.marker)), 120_000);
    const serverPid = runningCockpits(env).find((c) => c.name === NAME)?.pid ?? 0;
    await until(() => storedSessions(env.XDG_STATE_HOME ?? '', serverPid).length === AGENTS.length, 30_000);
    const before = server.requests.length;
    process.kill(serverPid, 'SIGKILL');
    await until(() => !alive(serverPid) && first.code !== undefined, 30_000);
    await until(() => leftovers(dir).filter((pid) => !isSleep(pid)).length === 0, 30_000);
    server.setMode('ok');

    const attached = client(['attach', NAME], env, project);
    await vi.waitFor(async () => {
      const status = await runTai(['status', '-t', NAME, '--json'], env, project).done;
      const agents = status.code === 0 ? (JSON.parse(status.stdout) as { agents: { state: string }[] }).agents : [];
      if (agents.length !== AGENTS.length || agents.some((a) => a.state !== 'done')) throw new Error(`not done yet: ${status.stdout}${status.stderr}`);
    }, { timeout: 240_000, interval: 1_000 });
    const resumed = server.requests.slice(before).filter((r) => r.provider !== 'other').map((r) => JSON.stringify(r.body));
    for (const { marker } of AGENTS) expect(resumed.some((body) => body.includes(marker) && body.includes('Your session was interrupted')), `${marker}: no resumed request with its history`).toBe(true);
    await until(() => plain(attached.out).includes(FINAL_TEXT), 30_000);
    const drawn = plain(attached.out);
    for (const { marker } of AGENTS) expect(drawn, `the old turn of ${marker} is not drawn`).toContain(marker);
    expect(drawn).toContain(SEAM);
    // Ended, the cockpit is ended on purpose so that a later test's cockpit of the name does not restore it.
    expect((await runTai(['kill', NAME], env, project).done).code).toBe(0);
  }, 600_000);
});

/** A `tai` client in a real pty (a person's terminal): everything it drew, and its exit code once it exited. */
function client(args: readonly string[], env: Record<string, string>, cwd: string): { out: string; code: number | undefined } {
  const p = pty.spawn(process.execPath, [join(ROOT, 'dist/src/cli.js'), ...args], {
    cols: 240,
    rows: 80,
    cwd,
    env: { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, TERM: 'xterm-256color', ...env },
  });
  const seen = { out: '', code: undefined as number | undefined };
  p.onData((d) => (seen.out += d));
  p.onExit((e) => (seen.code = e.exitCode));
  clients.push(p);
  return seen;
}

/** What a terminal shows of `bytes`, roughly: escape sequences taken out. */
function plain(bytes: string): string {
  return bytes.replace(/\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78]/g, '');
}
