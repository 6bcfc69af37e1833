/**
 * The delivery scripts of the host's reaper under a real `sh` here (the
 * host's login shell would run the same command line): a copy is named only
 * once it runs, a file that cannot run leaves nothing behind, and the
 * answers are read past a banner.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { builtReaper } from '../../../src/io/agents/runners/reaper-binary.js';
import { buildLine, copyLine, probeLine, readFacts, readPlaced } from '../../../src/io/host-reaper/host-reaper-scripts.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Runs a command line as the host's login shell would, with a cache folder of its own and `input` on stdin. */
function onHost(line: string, input: Buffer | string = ''): { cache: string; stdout: string } {
  const cache = mkdtempSync(join(tmpdir(), 'tai-host-cache-'));
  dirs.push(cache);
  const run = spawnSync('sh', ['-c', line], { input, encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: cache, XDG_CACHE_HOME: cache } });
  return { cache, stdout: run.stdout };
}

const binary = (): Buffer => {
  const path = builtReaper();
  if (path === undefined) throw new Error('the native reaper is not built: node src/native/build.mjs');
  return readFileSync(path);
};

describe("the scripts that put the reaper on a host", () => {
  it('copies a binary under its name only after it ran there, with no temporary file left', () => {
    const { cache, stdout } = onHost(copyLine('tai-reaper-0123456789abcdef'), binary());
    expect(readPlaced(stdout)).toEqual({ path: join(cache, 'tai', 'tai-reaper-0123456789abcdef') });
    expect(readdirSync(join(cache, 'tai'))).toEqual(['tai-reaper-0123456789abcdef']);
  });

  it('leaves nothing when the copy cannot run there (a cut transfer, another libc), and says why', () => {
    const { cache, stdout } = onHost(copyLine('tai-reaper-0123456789abcdef'), binary().subarray(0, 4096));
    const placed = readPlaced(stdout);
    expect('failed' in placed ? placed.failed : '').not.toBe('');
    expect(readdirSync(join(cache, 'tai'))).toEqual([]);
  });

  it('builds reaper.c there and names the result once it runs; a source that does not compile leaves nothing and says cc\'s last line', () => {
    const source = readFileSync(new URL('../../../src/native/reaper.c', import.meta.url));
    const built = onHost(buildLine('tai-reaper-cc-0123456789abcdef'), source);
    expect(readPlaced(built.stdout)).toEqual({ path: join(built.cache, 'tai', 'tai-reaper-cc-0123456789abcdef') });
    expect(readdirSync(join(built.cache, 'tai'))).toEqual(['tai-reaper-cc-0123456789abcdef']);
    const broken = onHost(buildLine('tai-reaper-cc-0123456789abcdef'), 'int main( {');
    const failed = readPlaced(broken.stdout);
    expect('failed' in failed ? failed.failed : '').toMatch(/^cc: /);
    expect(readdirSync(join(broken.cache, 'tai'))).toEqual([]);
  });

  it("reads the probe's answer past a banner: the cache folder, uname, cc, the files already there", () => {
    const copied = onHost(copyLine('tai-reaper-aaaa'), binary());
    const run = spawnSync('sh', ['-c', `echo Welcome to the host; ${probeLine('tai-reaper-aaaa', 'tai-reaper-cc-bbbb')}`], {
      encoding: 'utf8',
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: copied.cache, XDG_CACHE_HOME: copied.cache },
    });
    const facts = readFacts(run.stdout);
    expect(facts?.dir).toBe(join(copied.cache, 'tai'));
    expect(facts?.uname).toMatch(/^Linux /);
    expect(facts?.have.has('tai-reaper-aaaa')).toBe(true);
    expect(facts?.have.has('tai-reaper-cc-bbbb')).toBe(false);
    expect(readFacts('Welcome\n')).toBeUndefined();
    expect(existsSync(join(copied.cache, 'tai', 'tai-reaper-cc-bbbb'))).toBe(false);
  });
});
