import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { identityOf, processStart, sameProcessAlive, startedNear } from '../../src/io/process-identity.js';
import { until } from '../helpers/until.js';

describe('a process identity', () => {
  it("reads the start time after the last parenthesis, whatever the program's name holds", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tai-ident-'));
    const odd = join(dir, 'x) (y 1 2');
    copyFileSync('/bin/sleep', odd);
    const child = spawn(odd, ['30'], { stdio: 'ignore' });
    try {
      const pid = child.pid ?? 0;
      await until(() => processStart(pid) !== undefined);
      const fields = (await import('node:fs')).readFileSync(`/proc/${pid}/stat`, 'utf8');
      expect(fields).toContain('(x) (y 1 2)');
      // Field 22 counted by hand: the fields after the name start at field 3.
      expect(processStart(pid)).toBe(fields.slice(fields.lastIndexOf(')') + 2).split(' ')[22 - 3]);
      const identity = identityOf(pid);
      expect(identity && sameProcessAlive(identity)).toBe(true);
      // The same pid with another start time is another program (a recycled pid).
      expect(sameProcessAlive({ pid, start: String(Number(identity?.start) + 1) })).toBe(false);
    } finally {
      child.kill('SIGKILL');
      await new Promise((resolve) => child.on('exit', resolve));
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is gone once the process has exited and been reaped', async () => {
    const child = spawn('true', { stdio: 'ignore' });
    const pid = child.pid ?? 0;
    await new Promise((resolve) => child.on('exit', resolve));
    await until(() => processStart(pid) === undefined);
    expect(identityOf(pid)).toBeUndefined();
  });

  it("takes a run key's pid for its supervisor only when that process started when the key says", () => {
    const origin = Math.round(performance.timeOrigin);
    expect(startedNear(process.pid, origin)).toBe(true);
    expect(startedNear(process.pid, origin - 3_600_000)).toBe(false);
    expect(startedNear(0, origin)).toBe(false);
  });
});
