/**
 * The host's slot script (src/core/remote/host-slots.ts) run by a real `sh`
 * with its cache folder in a temporary place: a claim per live slot shell,
 * the refusal at the limit with the host named, the slot freed at the end,
 * a stale slot (a holder that is gone) swept, the count read back.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { countCommandLine, readCount, slotCommandLine } from '../../../src/core/remote/host-slots.js';
import { until } from '../../helpers/until.js';

let cache: string;
const held: ChildProcess[] = [];
afterEach(() => {
  for (const child of held.splice(0)) (child.kill('SIGKILL'), child.stdin?.destroy());
  rmSync(cache, { recursive: true, force: true });
});

function fresh(): NodeJS.ProcessEnv {
  cache = mkdtempSync(join(tmpdir(), 'tai-slots-'));
  return { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: cache, XDG_CACHE_HOME: cache };
}

const slots = (): string[] => readdirSync(join(cache, 'tai', 'slots')).sort();

describe('the slot script on a host', () => {
  it('claims one slot per agent, refuses past the limit naming the host, frees the slot at the end and sweeps a stale one', async () => {
    const env = fresh();
    // Two holders of a limit of 2, each running until killed: `cat` waits on its stdin.
    for (let i = 0; i < 2; i++) {
      const child = spawn('sh', ['-c', slotCommandLine('cat', 'build.example', 2)], { env, stdio: ['pipe', 'ignore', 'pipe'] });
      held.push(child);
    }
    await until(() => slots().length === 2, { what: 'two slots claimed' });
    expect(slots()).toEqual(['1', '2']);
    const third = spawnSync('sh', ['-c', slotCommandLine('echo ran', 'build.example', 2)], { env, encoding: 'utf8' });
    expect(third.stderr).toBe('tai: too many agents on build.example: 2 are running and the limit is 2; wait for one to finish or cancel one (tai cancel ID)\n');
    expect(third.status).toBe(75);
    expect(third.stdout).toBe('');
    expect(readCount(spawnSync('sh', ['-c', countCommandLine()], { env, encoding: 'utf8' }).stdout)).toBe(2);

    // One agent ends (its stdin closed): its slot is freed and the exit status passes through.
    const ending = held[0];
    const ended = new Promise<number | null>((resolve) => ending?.on('exit', (code) => resolve(code)));
    ending?.stdin?.end();
    expect(await ended).toBe(0);
    // The two holders started at once: either may hold either number.
    const left = slots();
    expect(left).toHaveLength(1);
    const fits = spawnSync('sh', ['-c', slotCommandLine('echo ran; exit 3', 'build.example', 2)], { env, encoding: 'utf8' });
    expect(fits.stdout).toBe('ran\n');
    expect(fits.status).toBe(3);

    // A holder SIGKILLed leaves its slot: the next claim sweeps it.
    held[1]?.kill('SIGKILL');
    await until(() => held[1]?.exitCode !== null || held[1]?.signalCode !== null, { what: 'the holder gone' });
    expect(slots()).toEqual(left);
    expect(readCount(spawnSync('sh', ['-c', countCommandLine()], { env, encoding: 'utf8' }).stdout)).toBe(0);
    expect(slots()).toEqual([]);
  });

  it('sweeps a slot left by a pid that no longer runs, keeps one whose holder lives', () => {
    const env = fresh();
    mkdirSync(join(cache, 'tai', 'slots'), { recursive: true, mode: 0o700 });
    const gone = spawnSync('true').pid ?? 1;
    symlinkSync(String(gone), join(cache, 'tai', 'slots', '1'));
    symlinkSync(String(process.pid), join(cache, 'tai', 'slots', '2'));
    const counted = spawnSync('sh', ['-c', countCommandLine()], { env, encoding: 'utf8' });
    expect(readCount(counted.stdout)).toBe(1);
    expect(slots()).toEqual(['2']);
  });
});
