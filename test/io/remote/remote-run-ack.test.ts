/**
 * The local side of a remote agent ends only once ssh has carried the exit
 * frame's acknowledgement to the host: ending at once let the runner's reaper
 * kill ssh with the ack unsent, and the host kept the job's folder for its
 * lost grace (docs/remote.md, "The reaper on the host: the POSIX `sh` path"). The ssh here is a
 * stand-in that sends a session's begin and exit frames, then takes its time
 * before it reads what tai sent.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const WRAPPER = join(import.meta.dirname, '../../../dist/src/io/remote/remote-run.js');
let work: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'tai-remote-ack-'));
});
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

/**
 * A stand-in for ssh: a session's begin, after `lateS` the agent's last output
 * and its exit frame (status 0), then, after `waitS`, every line tai sent into `heard`.
 */
function fakeSsh(heard: string, waitS: number, lateS = 0): string {
  const file = join(work, 'ssh');
  const frames = `printf '\\001tai begin /tmp/tai-run.x 0 0\\n'\nsleep ${lateS}\nprintf '\\001tai o 0 4\\nbye\\n\\001tai x 0\\n'\n`;
  writeFileSync(file, `#!/bin/sh\n${frames}sleep ${waitS}\ncat >${heard}.t && mv ${heard}.t ${heard}\n`);
  chmodSync(file, 0o755);
  return file;
}

describe("a remote agent's exit", () => {
  it('ends the local side only after ssh took the acknowledgement of the exit frame', { timeout: 30_000 }, async () => {
    const heard = join(work, 'heard');
    const ssh = fakeSsh(heard, 1);
    const env = { PATH: process.env['PATH'], HOME: work, XDG_STATE_HOME: join(work, 'state'), NO_COLOR: '1', TERM: 'dumb' };
    const child = spawn(process.execPath, [WRAPPER, 'build-1', '--', ssh, 'start'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code, err).toBe(0);
    // When the local side is gone, the runner's reaper kills ssh: what ssh had not read by then never reaches the host.
    expect(existsSync(heard), 'ssh had read the ack when the local side ended').toBe(true);
    expect(readFileSync(heard, 'utf8').split('\n')).toContain('ack');
  });

  it('acknowledges the exit frame after its runner stopped reading its output, rather than ending on the broken pipe', { timeout: 30_000 }, async () => {
    const heard = join(work, 'heard-closed');
    const ssh = fakeSsh(heard, 0, 1);
    const env = { PATH: process.env['PATH'], HOME: work, XDG_STATE_HOME: join(work, 'state'), NO_COLOR: '1', TERM: 'dumb' };
    const child = spawn(process.execPath, [WRAPPER, 'build-1', '--', ssh, 'start'], { env, stdio: ['ignore', 'pipe', 'ignore'] });
    child.stdout.destroy(); // as an ACP session's close does at its turn's end, before the host's last output came
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(existsSync(heard) ? readFileSync(heard, 'utf8').split('\n') : []).toContain('ack');
  });
});
