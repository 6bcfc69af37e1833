/**
 * A private sshd for tests: on 127.0.0.1 at a free high port, with a host key
 * and a user key generated in a temporary folder, and an ssh config file (-F)
 * naming it as the host `taitest`, so a test never reads the user's ~/.ssh
 * (ssh reads the passwd entry's home, not $HOME). Needs /usr/sbin/sshd
 * (openssh-server, installed by .ci/run) and root, as the CI runs.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { until } from './until.js';

/** The sshd binary the helper runs. */
export const SSHD = '/usr/sbin/sshd';

/** The host alias the config file gives the private sshd. */
export const TEST_HOST = 'taitest';

/** A running private sshd. */
export interface TestSshd {
  /** The temporary folder holding keys, config and known hosts. */
  readonly dir: string;
  readonly port: number;
  /** The ssh config file to pass with -F (or TAI_SSH_CONFIG). */
  readonly config: string;
  /** The host's TMPDIR for sessions through `config` (where the remote reaper keeps its folder). */
  readonly hostTmp: string;
  /** The host's XDG_CACHE_HOME for sessions through `config` (where the host's agent slots are kept, in tai/slots). */
  readonly hostCache: string;
  /** The sshd process (the listener). */
  readonly process: ChildProcess;
  /** Everything sshd printed (it logs to stderr with -e). */
  log(): string;
  /** Stops the listener and every session it started, and removes the folder. */
  stop(): Promise<void>;
}

/** Why the private sshd cannot run here, or undefined when it can. */
export function sshdMissing(): string | undefined {
  if (!existsSync(SSHD)) return `${SSHD} is missing: apt-get install -y openssh-server (.ci/run does)`;
  if (userInfo().uid !== 0) return 'the private sshd runs as root (as the CI does)';
  return undefined;
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function keygen(file: string): void {
  const made = spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'tai-test', '-f', file], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`ssh-keygen failed: ${made.stderr}`);
}

/** How to start the private sshd. */
export interface SshdOptions {
  /** sshd's ForceCommand: run instead of each session's command (which it finds in SSH_ORIGINAL_COMMAND). */
  readonly forceCommand?: string;
}

/** Starts a private sshd; call stop() in the test's teardown. */
export async function startSshd(options: SshdOptions = {}): Promise<TestSshd> {
  const missing = sshdMissing();
  if (missing !== undefined) throw new Error(missing);
  // sshd refuses to start without its privilege-separation folder.
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const dir = mkdtempSync(join(tmpdir(), 'tai-sshd-'));
  keygen(join(dir, 'host'));
  keygen(join(dir, 'id'));
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(join(dir, 'id.pub')));
  const port = await freePort();
  const config = join(dir, 'ssh_config');
  const hostTmp = join(dir, 'host-tmp');
  mkdirSync(hostTmp, { mode: 0o700 });
  const hostCache = join(dir, 'host-cache');
  writeFileSync(
    config,
    [
      `Host ${TEST_HOST}`,
      '  HostName 127.0.0.1',
      `  Port ${port}`,
      `  User ${userInfo().username}`,
      `  IdentityFile ${join(dir, 'id')}`,
      '  IdentitiesOnly yes',
      '  StrictHostKeyChecking no',
      `  UserKnownHostsFile ${join(dir, 'known_hosts')}`,
      '  LogLevel ERROR',
      `  SetEnv TMPDIR=${hostTmp} XDG_CACHE_HOME=${hostCache}`,
      '',
    ].join('\n'),
  );
  const sshd = spawn(
    SSHD,
    ['-D', '-e', '-f', '/dev/null', '-p', String(port), '-h', join(dir, 'host'),
      '-o', 'ListenAddress=127.0.0.1', '-o', `AuthorizedKeysFile=${join(dir, 'authorized_keys')}`,
      '-o', 'PasswordAuthentication=no', '-o', 'KbdInteractiveAuthentication=no', '-o', 'StrictModes=no',
      '-o', 'PermitRootLogin=prohibit-password', '-o', `PidFile=none`, '-o', 'MaxSessions=64', '-o', 'MaxStartups=64', '-o', 'AcceptEnv=TMPDIR XDG_CACHE_HOME TAI_REMOTE_SPOOL_BYTES',
      ...(options.forceCommand === undefined ? [] : ['-o', `ForceCommand=${options.forceCommand}`])],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  sshd.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  await until(() => log.includes('Server listening') || sshd.exitCode !== null, { what: 'sshd listening', explain: () => log });
  if (sshd.exitCode !== null) throw new Error(`sshd did not start: ${log}`);
  return {
    dir,
    port,
    config,
    hostTmp,
    hostCache,
    process: sshd,
    log: () => log,
    async stop() {
      // The listener's death leaves its sessions running: end every descendant first.
      for (const pid of descendants(sshd.pid ?? -1)) signal(pid, 'SIGKILL');
      signal(sshd.pid ?? -1, 'SIGKILL');
      if (sshd.exitCode === null && sshd.signalCode === null) await new Promise((resolve) => sshd.once('exit', resolve));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // ESRCH: already gone.
  }
}

/** The pids whose parent chain leads to `root`, read from /proc. */
export function descendants(root: number): number[] {
  const parent = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parent.set(Number(name), Number(fields[1]));
    } catch {
      // The process ended while we looked.
    }
  }
  const found: number[] = [];
  const walk = (pid: number): void => {
    for (const [child, ppid] of parent) if (ppid === pid) (found.push(child), walk(child));
  };
  walk(root);
  return found;
}

/** The pids whose whole command line is `command` (the host's process table; here the host is this machine). */
export function processesRunning(command: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
      if (cmdline === command) found.push(Number(name));
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

/**
 * A copy of the server's ssh config whose sessions also get `vars` in their
 * environment on the host (TAI_REMOTE_SPOOL_BYTES for a small spool): the file to pass as TAI_SSH_CONFIG.
 */
export function configWith(server: TestSshd, name: string, vars: Record<string, string>): string {
  const file = join(server.dir, `ssh_config.${name}`);
  // ssh takes the first SetEnv line it reads: every variable goes on that one line.
  const extra = Object.entries(vars).map(([key, value]) => ` ${key}=${value}`).join('');
  writeFileSync(file, readFileSync(server.config, 'utf8').replace(/^( {2}SetEnv TMPDIR=.*)$/m, (line) => `${line}${extra}`));
  return file;
}

/** Runs ssh against the private sshd with its config; for the helper's own test. */
export function sshRun(server: TestSshd, command: string): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync('ssh', ['-F', server.config, '-o', 'BatchMode=yes', TEST_HOST, command], { encoding: 'utf8', timeout: 20_000 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}
