import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { run as spawnCli } from '../../src/cli/spawn/spawn.js';
import { run as recordCli } from '../../src/cli/results/record.js';
import { storedStatus } from '../../src/io/storage/stored-status.js';
import { fixture } from '../helpers/agents.js';
// @ts-expect-error a plain .mjs fixture without types
import { flood } from '../fixtures/flooder.mjs';
import { recordingIo } from '../helpers/recording-io.js';

const node = process.execPath;
const until = (cond: () => boolean, timeout = 30_000): Promise<void> =>
  vi.waitFor(() => {
    if (!cond()) throw new Error('not yet');
  }, { timeout, interval: 10 });

/** A CLI io that records output, with its own state folder (or `state`). */
const testIo = (env: NodeJS.ProcessEnv = {}, state?: string) => recordingIo({ env, state });

/** An agent that says it started (READY), waits for GO, then writes exactly `n` characters of numbered lines. */
function gatedFlood(dir: string, n: number): string[] {
  const ready = join(dir, 'READY');
  const go = join(dir, 'GO');
  return ['--', 'sh', '-c', `touch ${ready}; while [ ! -e ${go} ]; do sleep 0.02; done; exec ${node} ${fixture('flooder.mjs')} ${n}`];
}

let locker: ChildProcess | undefined;
let mounted: string | undefined;
afterEach(async () => {
  if (locker && locker.exitCode === null) {
    locker.stdin?.end();
    await once(locker, 'close');
  }
  locker = undefined;
  if (mounted) execFileSync('umount', [mounted]);
  mounted = undefined;
});

/** A real second process holding the database's write lock (BEGIN IMMEDIATE); resolves once it holds. */
async function lock(db: string, holdMs?: number): Promise<ChildProcess> {
  const child = spawn(node, [fixture('db-locker.mjs'), db, ...(holdMs === undefined ? [] : ['--hold-ms', String(holdMs)])], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  await until(() => out.includes('locked\n'));
  locker = child;
  return child;
}

describe('tai spawn when the state database refuses the result', () => {
  it('keeps the whole 10,001-character result in a 0600 file it names, exits 74, and the row ends done once the database is free', async () => {
    const io = testIo({ TAI_STATE_DB_WAIT_MS: '1500' });
    const whole = flood(10_001) as string;
    const code = spawnCli(['--label', 'locked out', ...gatedFlood(io.state, 10_001)], io);
    await until(() => existsSync(join(io.state, 'READY')));
    const held = await lock(join(io.state, 'tai', 'tai.db'));
    writeFileSync(join(io.state, 'GO'), '');
    expect(await code).toBe(74);

    const file = /the whole of it is in (\S+\.txt)/.exec(io.stderr)?.[1] as string;
    expect(file).toBeDefined();
    expect(readFileSync(file, 'utf8')).toBe(whole);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // No record is named that does not exist.
    expect(io.stderr).not.toContain('tai record read');
    expect(io.stderr).toContain('tai: agent #1 done (exit 0 · 10001 chars · not stored: whole result in ');
    expect(io.stdout).toContain(`could not be stored in the state database (the state database ${join(io.state, 'tai', 'tai.db')} stayed locked for `);
    expect(io.stdout).toContain(`the whole of it is in ${file} ...]`);

    // Free again: the next tai process writes what was kept.
    held.stdin?.end();
    await once(held, 'close');
    const status = storedStatus(io.env, Date.now());
    expect(status?.agents.map((a) => [a.label, a.state])).toEqual([['locked out', 'done']]);
    const read = testIo({}, io.state);
    expect(await recordCli(['read', basename(file, '.txt'), '--limit', '20000'], read)).toBe(0);
    expect(read.stdout).toBe(whole);
  }, 60_000);

  it('stores the result after the wait when the other process lets go in time, and exits 0 with a record that exists', async () => {
    const io = testIo({ TAI_STATE_DB_WAIT_MS: '20000' });
    const whole = flood(10_001) as string;
    const code = spawnCli(['--label', 'patient', ...gatedFlood(io.state, 10_001)], io);
    await until(() => existsSync(join(io.state, 'READY')));
    // Held past the first (blocking) try of 5 s, released during the retries.
    await lock(join(io.state, 'tai', 'tai.db'), 6_500);
    writeFileSync(join(io.state, 'GO'), '');
    expect(await code).toBe(0);
    const rid = /whole result: tai record read (r[0-9a-z]+)/.exec(io.stderr)?.[1] as string;
    expect(rid).toBeDefined();
    const read = testIo({}, io.state);
    expect(await recordCli(['read', rid, '--limit', '20000'], read)).toBe(0);
    expect(read.stdout).toBe(whole);
  }, 60_000);

  it('hands the whole result back on stdout and exits 74 when the filesystem is full (a real 1 MiB tmpfs)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tai-full-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir]);
    mounted = dir;
    const io = testIo({}, dir);
    const whole = flood(10_001) as string;
    const code = spawnCli(['--label', 'no room', ...gatedFlood(dir, 10_001)], io);
    await until(() => existsSync(join(dir, 'READY')));
    // Fill what is left of the filesystem.
    try {
      writeFileSync(join(dir, 'filler'), Buffer.alloc(2 << 20));
    } catch (err) {
      expect((err as NodeJS.ErrnoException).code).toBe('ENOSPC');
    }
    writeFileSync(join(dir, 'GO'), '');
    expect(await code).toBe(74);
    expect(io.stdout).toContain('[the result (10001 characters) could not be stored (the state database ');
    expect(io.stdout).toContain('its filesystem is full');
    expect(io.stdout.slice(io.stdout.indexOf('all of it follows]\n') + 19)).toBe(`${whole}\n`);
    expect(io.stderr).toContain('the whole of it is on stdout');
    expect(io.stderr).not.toContain('tai record read');
  }, 60_000);

  it('on a full filesystem (a real 1 MiB tmpfs) leaves no empty file in unsaved/ and the row says done, exit 0, not cancelled by its supervisor', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tai-full-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir]);
    mounted = dir;
    const io = testIo({}, dir);
    const code = spawnCli(['--label', 'no room', ...gatedFlood(dir, 10_001)], io);
    await until(() => existsSync(join(dir, 'READY')));
    try {
      writeFileSync(join(dir, 'filler'), Buffer.alloc(2 << 20));
    } catch (err) {
      expect((err as NodeJS.ErrnoException).code).toBe('ENOSPC');
    }
    writeFileSync(join(dir, 'GO'), '');
    expect(await code).toBe(74);
    const unsaved = join(dir, 'tai', 'unsaved');
    const left = existsSync(unsaved) ? readdirSync(unsaved) : [];
    expect(left.filter((name) => statSync(join(unsaved, name)).size === 0)).toEqual([]);
    rmSync(join(dir, 'filler'));
    const stored = storedStatus({ XDG_STATE_HOME: dir }, Date.now());
    const row = stored?.agents.find((agent) => agent.label === 'no room');
    expect(row?.state, JSON.stringify(stored?.agents)).toBe('done');
    expect(row?.reason).not.toContain('supervisor exited');
  }, 60_000);
});

describe('tai spawn on a damaged state database', () => {
  it('says which file is damaged and how to start fresh, exits 74, and starts no agent', async () => {
    const io = testIo();
    mkdirSync(join(io.state, 'tai'), { recursive: true });
    const db = join(io.state, 'tai', 'tai.db');
    writeFileSync(db, 'this is not a database, just garbage '.repeat(200));
    expect(await spawnCli(['--', node, '-e', 'require("fs").writeFileSync(process.argv[1], "")', join(io.state, 'ran')], io)).toBe(74);
    expect(io.stderr).toBe(
      `tai spawn: the state database ${db} is damaged or not a database (SQLITE_NOTADB: file is not a database). ` +
        `Run \`tai doctor --reset-db\` to move it aside (it is kept as ${db}.corrupt-<time>) and start a fresh one, or restore it from a backup.\n`,
    );
    expect(existsSync(join(io.state, 'ran'))).toBe(false);
    expect(readdirSync(join(io.state, 'tai'))).toEqual(['tai.db']);
    rmSync(io.state, { recursive: true });
  });
});
