/**
 * A lost link done right (docs/remote.md, "A lost link"): the host's slot
 * stays claimed while the agent's job lives and is freed when it ends; a stop
 * asked while the link is down is said, waits for the host and is delivered at
 * the reattach, or the host's grace stops the agent when tai does not get back
 * in time; a cut before the first begin line is attached to. Against the
 * private sshd of test/helpers/sshd.ts (the host is this machine), the links
 * cut by killing the sshd's session processes.
 */
import { spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { descendants, processesRunning, startSshd, TEST_HOST, type TestSshd } from '../../helpers/sshd.js';
import { until } from '../../helpers/until.js';
import { REMOTE_CLOCKS, type RemoteClocks } from '../../../src/core/remote/remote-reaper.js';
import { agentArgv, slotAgentArgv } from '../../../src/io/remote/ssh-argv.js';
import { ensureMaster, placeOf } from '../../../src/io/remote/ssh-master.js';

const WRAPPER = join(import.meta.dirname, '../../../dist/src/io/remote/remote-run.js');
let server: TestSshd;
let work: string;

beforeAll(async () => {
  server = await startSshd();
  work = mkdtempSync(join(tmpdir(), 'tai-remote-hold-'));
});
afterAll(async () => {
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
});

let serial = 0;
function envOf(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  serial += 1;
  return { PATH: process.env['PATH'], HOME: work, XDG_STATE_HOME: join(work, `state-${serial}`), TAI_SSH_CONFIG: server.config, TAI_PLEXER_SOCKET: '', NO_COLOR: '1', TERM: 'dumb', ...extra };
}

/** The local wrapper as the command runner runs it, around a real ssh (in a slot of the host's, or not). */
async function startWrapper(argv: readonly string[], env: NodeJS.ProcessEnv, how: { slot?: boolean; clocks?: RemoteClocks; config?: string } = {}) {
  const place = placeOf(TEST_HOST, { ...env, ...(how.config === undefined ? {} : { TAI_SSH_CONFIG: how.config }) });
  await ensureMaster(place);
  const clocks = how.clocks ?? REMOTE_CLOCKS;
  const ssh = how.slot === true ? slotAgentArgv(place, argv, clocks) : agentArgv(place, argv, clocks);
  const child = spawn(process.execPath, [WRAPPER, TEST_HOST, '--', ...ssh], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const got = { out: '', err: '' };
  child.stdout.on('data', (chunk: Buffer) => (got.out += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (got.err += chunk.toString('utf8')));
  const done = new Promise<number>((resolve) => child.on('close', (code, signal) => resolve(code ?? (signal === null ? -1 : 128))));
  return { child, got, done };
}

/** The link cut: every sshd session process (the shared connection's too) killed; the listener stays. */
function cut(of: TestSshd = server): void {
  for (const pid of descendants(of.process.pid ?? -1)) if (readCmd(pid).startsWith('sshd')) process.kill(pid, 'SIGKILL');
}

function readCmd(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return '';
  }
}

/** The host's live slots: each a symlink to a pid that runs. */
function liveSlots(): string[] {
  const dir = join(server.hostCache, 'tai', 'slots');
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((name) => {
    if (!lstatSync(join(dir, name)).isSymbolicLink()) return false;
    return existsSync(`/proc/${readlinkSync(join(dir, name))}`);
  });
}

function slotLinks(): string[] {
  const dir = join(server.hostCache, 'tai', 'slots');
  return existsSync(dir) ? readdirSync(dir).filter((name) => !name.startsWith('.')) : [];
}

function numbered(from: number, to: number): string {
  let text = '';
  for (let i = from; i <= to; i += 1) text += `line ${i}\n`;
  return text;
}

const waitFile = (file: string): string => `while [ ! -e ${file} ]; do sleep 0.1; done`;

describe("the host's slot during a lost link", () => {
  it('stays claimed while the agent goes on through the cut and the reattach, and is freed when the agent ends', { timeout: 90_000 }, async () => {
    const [go1, go2] = [join(work, 'slot-go1'), join(work, 'slot-go2')];
    const run = await startWrapper(['sh', '-c', `echo a; ${waitFile(go1)}; echo b; ${waitFile(go2)}; echo c`], envOf({ TAI_OUTAGE_TIME_SCALE: '0.05' }), { slot: true });
    await until(() => run.got.out === 'a\n', { what: 'the agent running', timeout: 20_000, explain: () => run.got.err });
    expect(liveSlots()).toHaveLength(1);
    cut();
    await until(() => run.got.err.includes('lost the link'), { what: 'the link lost', timeout: 20_000, explain: () => run.got.err });
    writeFileSync(go1, '');
    await until(() => run.got.err.includes('reattached') && run.got.out === 'a\nb\n', { what: 'the reattach', timeout: 30_000, explain: () => run.got.err });
    // The first session (and its slot shell) is gone by now: the slot is the job's.
    await until(() => slotShells().length === 0, { what: 'the first slot shell gone', timeout: 10_000 });
    expect(liveSlots()).toHaveLength(1);
    writeFileSync(go2, '');
    expect(await run.done).toBe(0);
    expect(run.got.out).toBe('a\nb\nc\n');
    await until(() => slotLinks().length === 0, { what: 'the slot freed', timeout: 10_000, explain: () => slotLinks().join(' ') });
  });
});

/** The host's slot shells (`sh -c SCRIPT tai-slot ...`; the host is this machine). */
function slotShells(): number[] {
  return readdirSync('/proc').filter((name) => /^\d+$/.test(name) && /^sh -c .* tai-slot /s.test(readCmd(Number(name)))).map(Number);
}

describe('a stop asked while the link is down', () => {
  it('is said, waits for the host, and is delivered at the reattach (the agent gets its soft stop)', { timeout: 90_000 }, async () => {
    const script = `trap 'echo got TERM; exit 7' TERM; echo ready; while :; do sleep 0.2; done`;
    const run = await startWrapper(['sh', '-c', script], envOf({ TAI_OUTAGE_TIME_SCALE: '0.1' }), { clocks: { ...REMOTE_CLOCKS, lostGraceS: 120 } });
    await until(() => run.got.out === 'ready\n', { what: 'the agent running', timeout: 20_000, explain: () => run.got.err });
    cut();
    await until(() => run.got.err.includes('lost the link'), { what: 'the link lost', timeout: 20_000, explain: () => run.got.err });
    process.kill(-(run.child.pid ?? 0), 'SIGINT');
    await until(() => run.got.err.includes('stopping:'), { what: 'the stop said', timeout: 10_000, explain: () => run.got.err });
    expect(run.got.err).toMatch(/tai: stopping: taitest does not answer; the agent is stopped when it does, or by the host itself after its grace/);
    expect(await run.done).toBe(7);
    expect(run.got.out).toBe('ready\ngot TERM\n');
    expect(run.got.err).toContain('delivering the stop asked while taitest did not answer');
  });

  it("is carried out by the host's own grace when tai gets back too late, and said", { timeout: 90_000 }, async () => {
    const sleep = `sleep 4312.${process.pid}`;
    // The host's grace is 1 s; the first probe of the host comes 12 s after the loss.
    const run = await startWrapper(['sh', '-c', `echo ready; ${sleep}`], envOf({ TAI_OUTAGE_TIME_SCALE: '0.2' }), { clocks: { ...REMOTE_CLOCKS, lostGraceS: 1 } });
    await until(() => run.got.out === 'ready\n', { what: 'the agent running', timeout: 20_000, explain: () => run.got.err });
    cut();
    await until(() => run.got.err.includes('lost the link'), { what: 'the link lost', timeout: 20_000, explain: () => run.got.err });
    process.kill(-(run.child.pid ?? 0), 'SIGTERM');
    await until(() => processesRunning(sleep).length === 0, { what: 'the agent stopped by the host', timeout: 30_000 });
    expect(await run.done).toBe(143);
    expect(run.got.err).toContain('stopping: taitest does not answer');
    expect(run.got.err).toMatch(/the agent on taitest was stopped by the host itself \(its grace ran out before the link was back\)/);
  });
});

describe('a cut before the first begin line', () => {
  it('is attached to: every line once, in order', { timeout: 90_000 }, async () => {
    // A host whose first session's output is held back (a slow pipe), so the cut comes before its begin line reaches tai.
    const slow = await startSshd({ forceCommand: 'case "$SSH_ORIGINAL_COMMAND" in *tai-remote*) eval "$SSH_ORIGINAL_COMMAND" | { sleep 600; cat; };; *) eval "$SSH_ORIGINAL_COMMAND";; esac' });
    try {
      const go = join(work, 'early-go');
      const env = envOf({ TAI_SSH_CONFIG: slow.config, TAI_OUTAGE_TIME_SCALE: '0.05' });
      const run = await startWrapper(['sh', '-c', `${waitFile(go)}; i=0; while [ $i -lt 30 ]; do i=$((i+1)); echo "line $i"; done`], env);
      const jobs = (): string[] => readdirSync(slow.hostTmp).filter((name) => name.startsWith('tai-run.'));
      await until(() => jobs().some((job) => existsSync(join(slow.hostTmp, job, 'pid'))), { what: 'the job started on the host', timeout: 20_000, explain: () => run.got.err });
      expect(run.got.out).toBe('');
      cut(slow);
      writeFileSync(go, '');
      expect(await run.done).toBe(0);
      expect(run.got.out).toBe(numbered(1, 30));
      expect(run.got.err).toContain('lost the link to taitest');
      expect(run.got.err).toContain('reattached to the agent on taitest');
      expect(run.got.err).not.toContain('\u0001');
    } finally {
      await slow.stop();
    }
  });
});
