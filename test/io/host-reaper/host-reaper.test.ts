/**
 * The native reaper on a host (docs/remote.md, "The reaper on a host"),
 * against a real sshd on 127.0.0.1 (test/helpers/sshd.ts) whose sessions
 * have a cache folder of their own: the host is this machine, so its process
 * table is this one's. Each path is forced with TAI_HOST_REAPER: the binary
 * copied (the host is this machine, so its `uname -sm` matches), reaper.c
 * built with the host's cc, the sh reaper alone.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { descendants, processesRunning, startSshd, TEST_HOST, type TestSshd } from '../../helpers/sshd.js';
import { runTai, startTai } from '../../helpers/tai-cli.js';
import { until } from '../../helpers/until.js';

let server: TestSshd;
const states: string[] = [];

beforeAll(async () => {
  server = await startSshd();
});
afterAll(async () => {
  await server?.stop();
  for (const dir of states) rmSync(dir, { recursive: true, force: true });
});

/** A fresh state folder (so a fresh shared connection, and a fresh choice of reaper) and the environment of every run. */
function envOf(reaper: string): NodeJS.ProcessEnv {
  const state = mkdtempSync(join(tmpdir(), 'tai-host-reaper-'));
  states.push(state);
  return { XDG_STATE_HOME: state, TAI_SSH_CONFIG: server.config, TAI_PLEXER_SOCKET: '', TAI_HOST_REAPER: reaper, NO_COLOR: '1', TERM: 'dumb' };
}

/** The files of tai's cache folder on the host. */
function hostCacheFiles(): string[] {
  const dir = join(server.hostCache, 'tai');
  return existsSync(dir) ? readdirSync(dir).filter((name) => name.startsWith('tai-reaper')) : [];
}

let serial = 0;
function mark(): string {
  serial += 1;
  return `43${process.pid % 1000}.${serial}${Math.floor(Math.random() * 1e6)}`;
}

/** An agent whose grandchild leaves by a double fork and setsid, with an empty environment (no mark) and SIGTERM ignored. */
function escaper(): { argv: string[]; child: string; grandchild: string } {
  const child = mark();
  const grandchild = mark();
  const inner = `trap '' TERM; exec sleep ${grandchild}`;
  return { argv: ['sh', '-c', `( env -i setsid sh -c "${inner}" & ); echo started; exec sleep ${child}`], child: `sleep ${child}`, grandchild: `sleep ${grandchild}` };
}

/** As escaper, but the agent and its child ignore SIGTERM too: only the hard stop ends them. */
function deafEscaper(): { argv: string[]; child: string; grandchild: string } {
  const agent = escaper();
  return { ...agent, argv: ['sh', '-c', `trap '' TERM; ${agent.argv[2] ?? ''}`] };
}

/** An agent that prints its parent's command line: the reaper it runs under. */
const WHO_REAPS = ['sh', '-c', 'tr "\\0" " " </proc/$PPID/cmdline; echo; echo done-here'];

describe('the reaper of an agent on a host', () => {
  afterEach(() => {
    for (const pid of descendants(1).filter((p) => readCmd(p).includes('sleep 43'))) safeKill(pid);
  });

  it('copies the native reaper into the host\'s cache, and a cancel leaves nothing, not even a setsid grandchild that cleared its environment and ignores SIGTERM', async () => {
    const env = envOf('copy');
    const check = await runTai(['hosts', 'check', TEST_HOST], env);
    expect(check.out).toMatch(/reaper: native, copied to \S+\/tai\/tai-reaper-[0-9a-f]{16} \(Linux \S+ as here/);
    const agent = escaper();
    const run = startTai(['spawn', '--host', TEST_HOST, '--', ...agent.argv], env);
    await until(() => processesRunning(agent.child).length > 0 && processesRunning(agent.grandchild).length > 0, { what: 'the agent and its grandchild on the host', explain: run.err, timeout: 20_000 });
    const [grandchild] = processesRunning(agent.grandchild);
    expect(readFileSync(`/proc/${grandchild}/environ`, 'utf8')).not.toContain('TAI_REMOTE_RUN');
    expect(hostCacheFiles().some((name) => /^tai-reaper-[0-9a-f]{16}$/.test(name))).toBe(true);
    await until(() => catchesSigint(run.child.pid ?? -1), { what: 'tai spawn catching Ctrl-C' });
    run.child.kill('SIGINT');
    const ended = await run.done;
    expect(ended.code).toBe(130);
    await until(() => processesRunning(agent.child).length === 0 && processesRunning(agent.grandchild).length === 0 && readdirSync(server.hostTmp).length === 0, {
      what: 'nothing of the agent left on the host',
      timeout: 20_000,
    });
  });

  it('when the agent ignores SIGTERM too, the hard stop (the sh reaper\'s KILL of the native one) still leaves nothing on the host', { timeout: 60_000 }, async () => {
    const env = envOf('copy');
    const agent = deafEscaper();
    const run = startTai(['spawn', '--host', TEST_HOST, '--', ...agent.argv], env);
    await until(() => processesRunning(agent.child).length > 0 && processesRunning(agent.grandchild).length > 0, { what: 'the agent and its grandchild on the host', explain: run.err, timeout: 20_000 });
    await until(() => catchesSigint(run.child.pid ?? -1), { what: 'tai spawn catching Ctrl-C' });
    run.child.kill('SIGINT');
    await run.done;
    await until(() => processesRunning(agent.child).length === 0 && processesRunning(agent.grandchild).length === 0 && readdirSync(server.hostTmp).length === 0, {
      what: 'nothing of the agent left on the host after the hard stop',
      timeout: 40_000,
    });
  });

  it('builds reaper.c with the host\'s cc when the copy is skipped, and the agent runs under it to done', async () => {
    const env = envOf('build');
    const run = await runTai(['spawn', '--host', TEST_HOST, '--', ...WHO_REAPS], env);
    expect(run.out).toMatch(/\/tai\/tai-reaper-cc-[0-9a-f]{16} --host sh -c/);
    expect(run.out).toContain('done-here');
    expect(run.code).toBe(0);
    const check = await runTai(['hosts', 'check', TEST_HOST], env);
    expect(check.out).toContain('reaper: native, built there with cc');
    expect(check.out).toContain('TAI_HOST_REAPER=build skips the copy');
  });

  it('runs the agent under the sh reaper alone when told to, copying nothing, to done', async () => {
    const env = envOf('sh');
    const before = hostCacheFiles();
    const run = await runTai(['spawn', '--host', TEST_HOST, '--', ...WHO_REAPS], env);
    expect(run.out).not.toContain('tai-reaper');
    expect(run.out).toContain('done-here');
    expect(run.code).toBe(0);
    const check = await runTai(['hosts', 'check', TEST_HOST], env);
    expect(check.out).toContain('reaper: the POSIX sh one, sent in the command line (TAI_HOST_REAPER=sh)');
    expect(hostCacheFiles()).toEqual(before);
  });
});

function readCmd(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return '';
  }
}

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
