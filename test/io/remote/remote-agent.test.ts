/**
 * `tai spawn --host` against a real sshd on 127.0.0.1 (test/helpers/sshd.ts):
 * the built CLI (npm run build first), a command agent on the "host" (this
 * machine, so the host's process table is this one's), its output and exit
 * code back, its stops reaching the whole group and a `setsid` grandchild.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { descendants, processesRunning, startSshd, TEST_HOST, type TestSshd } from '../../helpers/sshd.js';
import { runTai, startTai, TAI_CLI } from '../../helpers/tai-cli.js';
import { until } from '../../helpers/until.js';
import { testEnv } from '../../helpers/test-env.js';

let server: TestSshd;
const states: string[] = [];

beforeAll(async () => {
  server = await startSshd();
});
afterAll(async () => {
  await server?.stop();
  for (const dir of states) rmSync(dir, { recursive: true, force: true });
});

/** A fresh state folder and the environment every run of these tests sets. */
function envOf(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const state = mkdtempSync(join(tmpdir(), 'tai-remote-state-'));
  states.push(state);
  return { XDG_STATE_HOME: state, TAI_SSH_CONFIG: server.config, TAI_PLEXER_SOCKET: '', NO_COLOR: '1', TERM: 'dumb', ...extra };
}

let serial = 0;
/** A sleep no other process runs: `sleep 4242.<pid><n>` is found by its command line. */
function mark(): string {
  serial += 1;
  return `42${process.pid % 1000}.${serial}${Math.floor(Math.random() * 1e6)}`;
}

/** An agent that leaves a setsid grandchild and waits: the marks to look for on the host. */
function lingerer(): { argv: string[]; child: string; grandchild: string } {
  const child = mark();
  const grandchild = mark();
  return { argv: ['sh', '-c', `setsid sleep ${grandchild} & echo started; sleep ${child}`], child: `sleep ${child}`, grandchild: `sleep ${grandchild}` };
}

/** Nothing of the agent is left on the host: its sleeps, and the reaper's folder (removed as the reaper ends). */
function goneFromHost(marks: { child: string; grandchild: string }): boolean {
  return processesRunning(marks.child).length === 0 && processesRunning(marks.grandchild).length === 0 && readdirSync(server.hostTmp).length === 0;
}

describe('a command agent on another host over ssh', () => {
  afterEach(() => {
    // A test that failed half-way must not leave its sleeps to the next one.
    for (const pid of descendants(server.process.pid ?? -1).filter((p) => readCmd(p).includes('sleep 42'))) safeKill(pid);
  });

  it('streams its output back and returns its exit code', async () => {
    const env = envOf();
    const ok = await runTai(['spawn', '--host', TEST_HOST, '--', 'sh', '-c', 'echo one; echo two'], env);
    expect(ok.err).toContain('done');
    expect(ok.out).toBe('one\ntwo\n');
    expect(ok.code).toBe(0);
    const failed = await runTai(['spawn', '--host', TEST_HOST, '--', 'sh', '-c', 'echo partial; exit 3'], env);
    expect(failed.out).toContain('partial');
    expect(failed.err).toContain('exit 3');
    expect(failed.code).toBe(1);
  });

  it("hands the prompt to the agent's stdin on the host, line by line, the last line without its newline too", async () => {
    const prompt = 'line one\n  indented $(not run) \\ back\nlast without newline';
    const run = await runTai(['spawn', '--host', TEST_HOST, '--', 'cat'], envOf(), prompt);
    expect(run.out).toBe(`${prompt}\n`);
    expect(run.code).toBe(0);
  });

  it('runs the agent in the folder --cwd names on the host', async () => {
    const run = await runTai(['spawn', '--host', TEST_HOST, '--cwd', server.dir, '--', 'pwd'], envOf());
    expect(run.out).toBe(`${server.dir}\n`);
    expect(run.code).toBe(0);
  });

  it('runs every hostile argument as exactly that text on the host', async () => {
    const pwned = join(server.dir, 'pwned');
    const words = [`$(touch ${pwned})`, `\`touch ${pwned}\``, `; touch ${pwned}`, "it's", '"quoted"', '*', '~', 'two  spaces', '-rf', 'a\nb'];
    const run = await runTai(['spawn', '--host', TEST_HOST, '--', 'printf', '%s|', ...words], envOf());
    expect(run.out).toBe(`${words.map((w) => `${w}|`).join('')}\n`);
    expect(run.code).toBe(0);
    expect(existsSync(pwned)).toBe(false);
  });

  it('shares one ssh connection between the agents of a host', async () => {
    const env = envOf();
    const accepted = (): number => server.log().split('Accepted publickey').length - 1;
    const before = accepted();
    for (const word of ['first', 'second', 'third']) {
      const run = await runTai(['spawn', '--host', TEST_HOST, '--', 'echo', word], env);
      expect(run.out).toBe(`${word}\n`);
    }
    expect(accepted() - before).toBe(1);
    const sockets = join(env['XDG_STATE_HOME'] ?? '', 'tai', 'ssh');
    expect(statSync(sockets).mode & 0o777).toBe(0o700);
  });

  it('on cancel (Ctrl-C) leaves nothing running on the host, not even a setsid grandchild', async () => {
    const agent = lingerer();
    const run = startTai(['spawn', '--host', TEST_HOST, '--', ...agent.argv], envOf());
    await until(() => processesRunning(agent.child).length > 0 && processesRunning(agent.grandchild).length > 0, { what: 'the agent and its grandchild running on the host', explain: run.err, timeout: 20_000 });
    // tai takes Ctrl-C once its wait has begun: its SIGINT handler is then installed.
    await until(() => catchesSigint(run.child.pid ?? -1), { what: 'tai spawn catching Ctrl-C' });
    run.child.kill('SIGINT');
    const ended = await run.done;
    expect(ended.err).toContain('cancelled');
    expect(ended.code).toBe(130);
    expect(ended.out).toContain('started');
    await until(() => goneFromHost(agent), { what: 'nothing of the agent left on the host', timeout: 20_000 });
  });

  it('when tai is SIGKILLed, the host stops the agent itself after the grace (--host-grace)', async () => {
    const agent = lingerer();
    const run = startTai(['spawn', '--host', TEST_HOST, '--host-grace', '1', '--', ...agent.argv], envOf(), { detached: true });
    await until(() => processesRunning(agent.grandchild).length > 0 && processesRunning(agent.child).length > 0, { what: 'the agent running on the host', explain: run.err, timeout: 20_000 });
    run.child.kill('SIGKILL');
    await run.done;
    await until(() => goneFromHost(agent), { what: 'nothing of the agent left on the host after the grace', timeout: 25_000 });
  });

  it('when its link goes and tai is not back within the grace, the host stops the agent and tai finds the job gone (exit 255)', async () => {
    const agent = lingerer();
    // The host's first probe comes 12 s after the loss (the schedule at 0.2), well after the grace of 1 s.
    const run = startTai(['spawn', '--host', TEST_HOST, '--', ...agent.argv], envOf({ TAI_REMOTE_GRACE: '1', TAI_OUTAGE_TIME_SCALE: '0.2' }));
    await until(() => processesRunning(agent.grandchild).length > 0 && processesRunning(agent.child).length > 0, { what: 'the agent running on the host', explain: run.err, timeout: 20_000 });
    // The host's side of the connection goes (as when the network drops it): its sshd session processes, not the agent.
    const sessions = descendants(server.process.pid ?? -1).filter((pid) => readCmd(pid).startsWith('sshd:'));
    expect(sessions.length).toBeGreaterThan(0);
    for (const pid of sessions) safeKill(pid);
    const ended = await run.done;
    expect(ended.err).toContain('exit 255');
    expect(ended.code).toBe(1);
    await until(() => goneFromHost(agent), { what: 'nothing of the agent left on the host after the grace', timeout: 25_000 });
  });

  it('when the heartbeats stop but the connection stays open (a silent cut), the host stops the agent after the limit and the grace', { timeout: 60_000 }, async () => {
    const agent = lingerer();
    const run = startTai(['spawn', '--host', TEST_HOST, '--', ...agent.argv], envOf({ TAI_REMOTE_GRACE: '1' }));
    await until(() => processesRunning(agent.grandchild).length > 0 && processesRunning(agent.child).length > 0, { what: 'the agent running on the host', explain: run.err, timeout: 20_000 });
    // The local side frozen: no heartbeat, no end of the channel, as when packets stop arriving.
    const local = descendants(run.child.pid ?? -1).filter((pid) => /remote-(run|agent)\.js|^ssh /.test(readCmd(pid)) && !readCmd(pid).startsWith('tai-reaper'));
    expect(local.length).toBe(2);
    for (const pid of local) process.kill(pid, 'SIGSTOP');
    try {
      await until(() => goneFromHost(agent), { what: 'the host to stop the agent without heartbeats', timeout: 45_000 });
    } finally {
      for (const pid of local) safeKill(pid);
      run.child.kill('SIGKILL');
    }
  });

  it('on timeout leaves nothing running on the host', { timeout: 90_000 }, async () => {
    const agent = lingerer();
    const run = await runTaiSlow(['spawn', '--timeout', '30', '--host', TEST_HOST, '--', ...agent.argv], envOf());
    expect(run.code).toBe(124);
    expect(run.out).toContain('started');
    await until(() => goneFromHost(agent), { what: 'nothing of the agent left on the host', timeout: 20_000 });
  });
});

describe('a host tai refuses or cannot reach', () => {
  it.each([
    ['-oProxyCommand=touch PWNED', /starts with '-'/],
    ['taitest;id>PWNED', /holds ";"/],
    ['taitest $(touch PWNED)', /whitespace/],
  ])('refuses --host %j with exit 64 before any ssh runs', async (host, why) => {
    const pwned = join(server.dir, 'PWNED');
    const run = await runTai(['spawn', '--host', host.replace('PWNED', pwned), '--', 'true'], envOf());
    expect(run.err).toMatch(why);
    expect(run.code).toBe(64);
    expect(existsSync(pwned)).toBe(false);
  });

  it.each([
    [['--host', TEST_HOST, '--host-grace', '0'], /--host-grace takes a whole number of seconds above 0, got '0'/],
    [['--host', TEST_HOST, '--host-grace', '1.5'], /--host-grace takes a whole number of seconds above 0, got '1\.5'/],
    [['--host-grace', '5'], /--host-grace goes with --host NAME/],
  ])('refuses %j with exit 64 before any ssh runs', async (flags, why) => {
    const run = await runTai(['spawn', ...flags, '--', 'true'], envOf());
    expect(run.err).toMatch(why);
    expect(run.code).toBe(64);
  });

  it('says a host that does not answer is unreachable, with exit 69 and the next step', async () => {
    const run = await runTai(['spawn', '--host', 'root@127.0.0.1', '--', 'true'], { ...envOf(), TAI_SSH_CONFIG: '/dev/null' });
    expect(run.err).toMatch(/cannot reach root@127\.0\.0\.1 over ssh: .+; see what it lacks with: tai hosts check root@127\.0\.0\.1/);
    expect(run.code).toBe(69);
  });
});

function readCmd(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return '';
  }
}

/** Whether the process has a handler for SIGINT (bit 2 of SigCgt in /proc/PID/status). */
function catchesSigint(pid: number): boolean {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('SigCgt:'));
    return line !== undefined && (BigInt(`0x${line.slice(7).trim()}`) & 2n) !== 0n;
  } catch {
    return false;
  }
}

function safeKill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** runTai with a deadline past the agent's 30 s timeout. */
function runTaiSlow(args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ code: number; out: string; err: string }> {
  const child = spawn(process.execPath, [TAI_CLI, ...args], { env: testEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code: code ?? -1, out, err })));
}
