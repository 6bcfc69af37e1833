/**
 * The host's sh reaper (src/core/remote/remote-reaper.ts) run by a real `sh`
 * here, as ssh would run it there: when the job's folder is deleted under it
 * (a /tmp cleaner, a test's temporary host), nothing of the job may go on
 * polling for files that will never come back, and the agent is stopped.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { remoteCommandLine } from '../../../src/core/remote/remote-reaper.js';
import { until } from '../../helpers/until.js';

/** The pids of processes whose command line holds `token`. */
function holding(token: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(token)) pids.push(Number(name));
    } catch {
      // Gone since the listing.
    }
  }
  return pids;
}

const dirs: string[] = [];
const sleepers: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) {
    for (const pid of holding(dir)) process.kill(pid, 'SIGKILL');
    for (const pid of sleepers.splice(0).flatMap(holding)) process.kill(pid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('the host reaper whose job folder is deleted', () => {
  it('stops the agent and leaves no process of the job behind', async () => {
    const host = mkdtempSync(join(tmpdir(), 'tai-reaper-folder-'));
    dirs.push(host);
    // The agent's argv carries the folder's name, so every process of the job (reaper, loops, agent's shell) can be
    // found; its sleep by a duration of its own.
    const seconds = String(100_000 + Math.floor(Math.random() * 800_000));
    const sleeper = `sleep\0${seconds}\0`;
    sleepers.push(sleeper);
    const agent = ['sh', '-c', `sleep ${seconds}; : ${host}`];
    const line = remoteCommandLine(agent, { softGraceS: 1, lostGraceS: 600, beatLimitS: 600 });
    const session = spawn('sh', ['-c', line], { env: { PATH: '/usr/bin:/bin', HOME: host, TMPDIR: host }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    session.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    session.stdout.resume();
    await until(() => stderr.includes('\u0001tai job') && holding(sleeper).length > 0, { timeout: 10_000 });
    const job = readdirSync(host).find((name) => name.startsWith('tai-run.'));
    expect(job).toBeDefined();
    rmSync(join(host, job!), { recursive: true, force: true });
    // The session keeps its stdin open: only the folder's loss may end the job.
    await until(() => holding(host).length === 0 && holding(sleeper).length === 0, { timeout: 20_000, interval: 100 });
    expect([...holding(host), ...holding(sleeper)]).toEqual([]);
    session.stdin.end();
  }, 30_000);
});
