import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultProbes, modelProbeCommand, networkProbeCommand, runProbe } from '../../../src/io/outage/probes.js';
import { until } from '../../helpers/until.js';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tai-probes-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { cwd, encoding: 'utf8' });
}

/** A repository with one commit, whose `origin` is a bare repository at `remote`. */
function repoWithOrigin(remote: string): string {
  const work = join(dir, 'work');
  execFileSync('git', ['init', '-q', '--bare', join(dir, 'remote.git')]);
  execFileSync('git', ['init', '-q', work]);
  git(work, 'commit', '-q', '--allow-empty', '-m', 'first');
  git(work, 'remote', 'add', 'origin', remote);
  return work;
}

/** A real `git daemon` serving `base` on a free loopback port, for a remote that crosses the network stack. */
async function gitDaemon(base: string): Promise<{ port: number; stop(): void }> {
  const port = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
  const child = spawn('git', ['daemon', '--reuseaddr', `--base-path=${base}`, '--export-all', '--listen=127.0.0.1', `--port=${port}`], { stdio: 'ignore' });
  const refused = (): boolean => /refused/i.test(spawnSync('git', ['ls-remote', `git://127.0.0.1:${port}/none.git`], { encoding: 'utf8', timeout: 2_000 }).stderr);
  await until(() => !refused(), { timeout: 10_000, what: 'git daemon to listen' });
  return { port, stop: () => void child.kill('SIGKILL') };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('running a probe', () => {
  it('succeeds when the command exits 0 and fails with its last line otherwise', async () => {
    expect(await runProbe({ argv: ['true'] })).toEqual({ ok: true, detail: 'exit 0' });
    expect(await runProbe({ shell: 'echo first >&2; echo "fatal: Network is unreachable" >&2; exit 128' })).toEqual({
      ok: false,
      detail: 'exit 128: fatal: Network is unreachable',
    });
    expect(await runProbe({ argv: ['/nonexistent/probe'] })).toMatchObject({ ok: false });
  });

  it('kills the whole process group of a probe that hangs past its timeout', async () => {
    const pidFile = join(dir, 'grandchild.pid');
    const outcome = await runProbe({ shell: `sleep 30 & echo $! > ${pidFile}; wait` }, { timeoutMs: 300 });
    expect(outcome).toEqual({ ok: false, detail: 'no answer within 300 ms' });
    const grandchild = Number(readFileSync(pidFile, 'utf8'));
    await until(() => !alive(grandchild), { timeout: 5_000 });
  });
});

describe('the configured probes', () => {
  it('probes the network with git ls-remote of the current repository\'s origin by default', async () => {
    const daemon = await gitDaemon(dir);
    try {
      const work = repoWithOrigin(`git://127.0.0.1:${daemon.port}/remote.git`);
      expect(networkProbeCommand({ cwd: work, env: {} })).toEqual({ argv: ['git', 'ls-remote', '--quiet', 'origin', 'HEAD'], answerIsOk: true });
      const probe = defaultProbes({ cwd: work, env: { PATH: process.env['PATH'] } })('network');
      expect(await probe?.()).toEqual({ ok: true, detail: 'exit 0' });
    } finally {
      daemon.stop();
    }
  });

  it('fails the default probe when the remote cannot be reached', async () => {
    // Port 1 on this machine's loopback: nothing listens, so the connection is refused.
    const work = repoWithOrigin('git://127.0.0.1:1/repo.git');
    const outcome = await defaultProbes({ cwd: work, env: { PATH: process.env['PATH'] } })('network')?.();
    expect(outcome?.ok).toBe(false);
    expect(outcome?.detail).toMatch(/^exit 128: .*Connection refused/);
  });

  it('counts a remote that answers with a refusal as the network being back', async () => {
    const daemon = await gitDaemon(dir);
    try {
      const work = repoWithOrigin(`git://127.0.0.1:${daemon.port}/gone.git`);
      const outcome = await defaultProbes({ cwd: work, env: { PATH: process.env['PATH'] } })('network')?.();
      expect(outcome?.ok).toBe(true);
      expect(outcome?.detail).toMatch(/^the remote answered \(exit 128: /);
    } finally {
      daemon.stop();
    }
  });

  it('never counts a remote that is a path on this disk, or file://, as a probe of the network', () => {
    expect(networkProbeCommand({ cwd: repoWithOrigin(join(dir, 'remote.git')), env: {} })).toBeUndefined();
    const work = join(dir, 'work');
    git(work, 'remote', 'set-url', 'origin', `file://${join(dir, 'remote.git')}`);
    expect(networkProbeCommand({ cwd: work, env: {} })).toBeUndefined();
    // Another remote that does reach the network is used instead.
    git(work, 'remote', 'add', 'upstream', 'https://127.0.0.1:1/r.git');
    expect(networkProbeCommand({ cwd: work, env: {} })).toEqual({ argv: ['git', 'ls-remote', '--quiet', 'upstream', 'HEAD'], answerIsOk: true });
  });

  it('takes the network probe from TAI_NETWORK_PROBE and the model canary from TAI_MODEL_PROBE', () => {
    expect(networkProbeCommand({ env: { TAI_NETWORK_PROBE: 'curl -sf https://example.com' } })).toEqual({
      shell: 'curl -sf https://example.com',
    });
    expect(modelProbeCommand({ env: { TAI_MODEL_PROBE: 'claude -p hi --model haiku' } })).toEqual({
      shell: 'claude -p hi --model haiku',
    });
    expect(modelProbeCommand({ env: {} })).toBeUndefined();
    expect(defaultProbes({ env: {} })('model')).toBeUndefined();
  });

  it('has no network probe in a folder without a remote', () => {
    const bare = join(dir, 'plain');
    execFileSync('git', ['init', '-q', bare]);
    expect(networkProbeCommand({ cwd: bare, env: {} })).toBeUndefined();
    expect(existsSync(bare)).toBe(true);
  });
});
