/**
 * The link to a remote agent (docs/remote.md, "A lost link"): the host
 * spools the agent's output and tai reads it by byte offset, so a link lost
 * and made again (the private sshd's session processes killed, or the whole
 * sshd frozen for 70 s) shows every byte once and in order; a banner of the
 * login shell is left out; a full spool is said. Against the private sshd of
 * test/helpers/sshd.ts (the host is this machine).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith, descendants, startSshd, TEST_HOST, type TestSshd } from '../../helpers/sshd.js';
import { TAI_CLI } from '../../helpers/tai-cli.js';
import { testEnv } from '../../helpers/test-env.js';
import { until } from '../../helpers/until.js';
import { REMOTE_CLOCKS } from '../../../src/core/remote/remote-reaper.js';
import { agentArgv } from '../../../src/io/remote/ssh-argv.js';
import { ensureMaster, placeOf } from '../../../src/io/remote/ssh-master.js';

const WRAPPER = join(import.meta.dirname, '../../../dist/src/io/remote/remote-run.js');
let server: TestSshd;
let work: string;

beforeAll(async () => {
  server = await startSshd();
  work = mkdtempSync(join(tmpdir(), 'tai-remote-link-'));
});
afterAll(async () => {
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
});

let serial = 0;
function envOf(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  serial += 1;
  const state = join(work, `state-${serial}`);
  return { PATH: process.env['PATH'], HOME: work, XDG_STATE_HOME: state, TAI_SSH_CONFIG: server.config, TAI_PLEXER_SOCKET: '', NO_COLOR: '1', TERM: 'dumb', ...extra };
}

/** The local wrapper run as the command runner runs it, around a real ssh to the private sshd. */
async function startWrapper(argv: readonly string[], env: NodeJS.ProcessEnv) {
  const place = placeOf(TEST_HOST, env);
  await ensureMaster(place);
  const ssh = agentArgv(place, argv, REMOTE_CLOCKS);
  const child = spawn(process.execPath, [WRAPPER, TEST_HOST, '--', ...ssh], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const got = { out: '', err: '' };
  child.stdout.on('data', (chunk: Buffer) => (got.out += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (got.err += chunk.toString('utf8')));
  const done = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)));
  return { child, got, done };
}

/** `tai spawn` with no deadline of its own (the test's is the bound). */
function startTaiLong(args: readonly string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [TAI_CLI, ...args], { env: testEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const done = new Promise<{ code: number; out: string; err: string }>((resolve) => child.on('close', (code) => resolve({ code: code ?? -1, out, err })));
  return { child, done, err: () => err };
}

/** The host's side of every ssh connection (its sshd session processes), not the agents under them. */
function sshdSessions(): number[] {
  return descendants(server.process.pid ?? -1).filter((pid) => readCmd(pid).startsWith('sshd'));
}

function readCmd(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return '';
  }
}

/** What the agent's stdout spool on the host holds (the job's folder under the host's TMPDIR). */
function hostSpool(): string {
  const jobs = readdirSync(server.hostTmp).filter((name) => name.startsWith('tai-run.'));
  return jobs.map((job) => (existsSync(join(server.hostTmp, job, 'o')) ? readFileSync(join(server.hostTmp, job, 'o'), 'utf8') : '')).join('');
}

function numbered(from: number, to: number, word = 'seq'): string {
  let text = '';
  for (let i = from; i <= to; i += 1) text += `${word} ${i}\n`;
  return text;
}

describe('a remote agent whose link is lost', () => {
  it('reads on after the link is cut and made again: every line once and in order', { timeout: 90_000 }, async () => {
    const go = join(work, 'go-short');
    const script = `i=0; while [ $i -lt 40 ]; do i=$((i+1)); echo "seq $i"; [ $i = 20 ] && while [ ! -e ${go} ]; do sleep 0.1; done; done; exit 0`;
    const run = await startWrapper(['sh', '-c', script], envOf({ TAI_OUTAGE_TIME_SCALE: '0.05' }));
    await until(() => run.got.out.includes('seq 20\n'), { what: 'the first 20 lines', timeout: 20_000, explain: () => run.got.err });
    for (const pid of sshdSessions()) process.kill(pid, 'SIGKILL');
    writeFileSync(go, '');
    const code = await run.done;
    expect(run.got.err).toMatch(/lost the link to taitest .*the agent goes on there; waiting for the host \(outage of ssh:\/\/taitest\)/);
    expect(code).toBe(0);
    expect(run.got.out).toBe(numbered(1, 40));
    expect(run.got.err).toMatch(/lost the link to taitest .*the agent goes on there; waiting for the host \(outage of ssh:\/\/taitest\)/);
    expect(run.got.err).toContain('reattached to the agent on taitest');
  });

  it('joins a line cut in the middle: its two halves once, nothing doubled', { timeout: 90_000 }, async () => {
    const go = join(work, 'go-half');
    const run = await startWrapper(['sh', '-c', `printf 'first half, '; while [ ! -e ${go} ]; do sleep 0.1; done; printf 'second half\\nnext line\\n'`], envOf({ TAI_OUTAGE_TIME_SCALE: '0.05' }));
    await until(() => run.got.out === 'first half, ', { what: 'the first half of the line', timeout: 20_000, explain: () => run.got.err });
    for (const pid of sshdSessions()) process.kill(pid, 'SIGKILL');
    writeFileSync(go, '');
    expect(await run.done).toBe(0);
    expect(run.got.out).toBe('first half, second half\nnext line\n');
  });

  it("leaves a login shell's banner out of the agent's output and says so", async () => {
    // A host whose every session prints a line before its command, as a chatty startup file does.
    const chatty = await startSshd({ forceCommand: 'echo "Welcome to the build box"; eval "$SSH_ORIGINAL_COMMAND"' });
    try {
      const run = await startWrapper(['sh', '-c', 'echo only this'], envOf({ TAI_SSH_CONFIG: chatty.config }));
      expect(await run.done).toBe(0);
      expect(run.got.out).toBe('only this\n');
      expect(run.got.err).toMatch(/taitest printed \d+ bytes before the agent's output .*"Welcome to the build box/);
    } finally {
      await chatty.stop();
    }
  });

  it('says when the spool on the host is full, keeps every byte before it, and says it again at the end', { timeout: 60_000 }, async () => {
    const env = envOf({ TAI_SSH_CONFIG: configWith(server, 'spool', { TAI_REMOTE_SPOOL_BYTES: '4096' }) });
    const run = await startWrapper(['seq', '1', '2000000'], env);
    await until(() => run.got.err.includes('filled its spool'), { what: 'the spool full', timeout: 30_000, explain: () => run.got.err });
    expect(run.got.err).toMatch(/the agent's stdout filled its spool on taitest \(64 MiB, or TAI_REMOTE_SPOOL_BYTES there\): all \d+ bytes before it are shown; its further writes wait on the host until it is stopped/);
    process.kill(-(run.child.pid ?? 0), 'SIGTERM');
    expect(await run.done).toBe(143);
    const whole = numbered(1, 2_000_000, '').replace(/^ /gm, '');
    expect(run.got.out.length).toBeGreaterThanOrEqual(4096);
    expect(run.got.out.length).toBeLessThan(whole.length);
    expect(whole.startsWith(run.got.out)).toBe(true);
    expect(run.got.err.split('filled its spool').length - 1).toBe(2);
  });
});

describe('the link cut for real', () => {
  it('survives 70 s of a frozen sshd: the agent goes on, tai waits for the host, reconnects, and the output has every line once, in order', { timeout: 600_000 }, async () => {
    const done = join(work, 'done-70');
    const script = `i=0; while [ ! -e ${done} ]; do i=$((i+1)); echo "seq $i"; sleep 0.5; done; echo end`;
    const run = startTaiLong(['spawn', '--host', TEST_HOST, '--', 'sh', '-c', script], envOf());
    await until(() => hostSpool().includes('seq 3\n'), { what: 'the agent running on the host', timeout: 30_000, explain: run.err });
    // The cut: the listener and every session process of the sshd frozen, so nothing answers on the port.
    const frozen = [server.process.pid ?? -1, ...sshdSessions()];
    for (const pid of frozen) process.kill(pid, 'SIGSTOP');
    const cutAt = Date.now();
    const linesAtCut = hostSpool().split('\n').length;
    try {
      await until(() => Date.now() - cutAt >= 70_000 && hostSpool().split('\n').length > linesAtCut + 100, { what: 'the agent writing on for 70 s', timeout: 120_000, interval: 500 });
    } finally {
      for (const pid of frozen) process.kill(pid, 'SIGCONT');
    }
    // tai reattaches on its own schedule; the agent ends once it has.
    await until(() => readdirSync(server.hostTmp).some((job) => sessionsOf(job) > 1), { what: 'tai attached again', timeout: 450_000, interval: 500, explain: run.err });
    writeFileSync(done, '');
    const ended = await run.done;
    expect(ended.code).toBe(0);
    const lines = ended.out.trimEnd().split('\n');
    expect(lines.at(-1)).toBe('end');
    expect(lines.slice(0, -1)).toEqual(numbered(1, lines.length - 1).trimEnd().split('\n'));
    expect(lines.length).toBeGreaterThan(140);
  });
});

/** How many sessions a job on the host has served (each writes its shell's pid into `sess`; a reattach changes it). */
const seen = new Map<string, Set<string>>();
function sessionsOf(job: string): number {
  const pids = seen.get(job) ?? new Set<string>();
  seen.set(job, pids);
  try {
    pids.add(readFileSync(join(server.hostTmp, job, 'sess'), 'utf8').trim());
  } catch {
    // Not a job folder, or it ended.
  }
  return pids.size;
}
