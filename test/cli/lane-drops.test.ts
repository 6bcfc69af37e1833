import { createHash } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { run as laneCli } from '../../src/cli/lanes/lane.js';
import { makeLane } from '../../src/io/lanes/lanes.js';
import { dropLane } from '../../src/io/lanes/lane-end.js';
import { LaneStore, type StoredLane } from '../../src/io/lanes/lane-store.js';
import { openStateDb, stateDir, STATE_DB_FILE, type StateDb } from '../../src/io/storage/state-db.js';
import { tempRepo, type TempRepo } from '../helpers/git-repo.js';
import { recordingIo } from '../helpers/recording-io.js';

let repo: TempRepo;
let cliDb: StateDb | undefined;
afterEach(() => {
  cliDb?.close();
  cliDb = undefined;
  repo?.cleanup();
});

const DAY = 86_400_000;
const testIo = (env: NodeJS.ProcessEnv = {}) => recordingIo({ state: repo.stateDir, inherit: process.env, env: { TAI_LANE_DROP_DAYS: undefined, ...env } });

/** The state database the CLI opens (under XDG_STATE_HOME). */
function db(): StateDb {
  cliDb ??= openStateDb(join(stateDir(testIo().env), STATE_DB_FILE));
  return cliDb;
}

async function lane(name: string): Promise<StoredLane> {
  const made = await makeLane(db(), { cwd: repo.dir, name, task: `task of ${name}`, agent: { kind: 'command', argv: ['true'], label: name }, now: Date.now() });
  return made.lane;
}

/** Every path under `dir` but `.git`, with its kind, its executable bit and a hash of its bytes (or its link's target). */
function hashTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.name === '.git') continue;
      const p = join(d, e.name);
      const st = lstatSync(p);
      if (st.isSymbolicLink()) out[relative(dir, p)] = `link ${readlinkSync(p)}`;
      else if (st.isDirectory()) walk(p);
      else out[relative(dir, p)] = `${st.mode & 0o111 ? 'exec' : 'file'} ${createHash('sha256').update(readFileSync(p)).digest('hex')}`;
    }
  };
  walk(dir);
  return out;
}

describe('tai lane drop --force and tai lane undrop', () => {
  it('saves edits, new, ignored, executable and linked files to a drop ref and brings them back byte for byte', async () => {
    repo = tempRepo();
    repo.commit('ignore', { '.gitignore': 'build/\n.env\n', 'gone.txt': 'to be deleted\n' });
    const l = await lane('keep');
    const w = l.worktree;
    writeFileSync(join(w, 'src/a.txt'), 'one\nTWO\nthree\n');
    writeFileSync(join(w, 'new.txt'), 'brand new\n');
    mkdirSync(join(w, 'build/deep'), { recursive: true });
    writeFileSync(join(w, 'build/deep/out.bin'), Buffer.from([0, 1, 2, 255, 254, 13, 10, 0]));
    writeFileSync(join(w, '.env'), 'SECRET=1\n');
    writeFileSync(join(w, 'run.sh'), '#!/bin/sh\necho hi\n');
    chmodSync(join(w, 'run.sh'), 0o755);
    symlinkSync('src/a.txt', join(w, 'link-to-a'));
    rmSync(join(w, 'gone.txt'));
    repo.git('-C', w, 'commit', '--quiet', '--allow-empty', '-m', 'a commit of the lane');
    const before = hashTree(w);
    const indexBefore = repo.git('-C', w, 'status', '--porcelain');

    const drop = testIo();
    expect(await laneCli(['drop', 'keep', '--force', '-C', repo.dir], drop), drop.stderr).toBe(0);
    expect(drop.stderr).toMatch(/saved as refs\/tai\/drops\/keep\/\d{8}T\d{6}\.\d{3}Z: tai lane undrop keep brings it back/);
    expect(existsSync(w)).toBe(false);
    expect(repo.git('branch', '--list', 'tai/keep').trim()).toBe('');
    expect(repo.git('stash', 'list').trim()).toBe('');

    const back = testIo();
    expect(await laneCli(['undrop', 'keep', '-C', repo.dir], back)).toBe(0);
    expect(back.stdout).toContain(`the lane keep is back in ${w} on tai/keep`);
    expect(hashTree(w)).toEqual(before);
    expect(before['run.sh']).toMatch(/^exec /);
    expect(before['link-to-a']).toBe('link src/a.txt');
    expect(repo.git('-C', w, 'log', '-1', '--format=%s').trim()).toBe('a commit of the lane');
    expect(repo.git('-C', w, 'status', '--porcelain')).toBe(indexBefore);
    expect(new LaneStore(db()).get(l.repo, 'keep')?.task).toBe('task of keep');
    expect(repo.git('for-each-ref', 'refs/tai/').trim()).toBe('');
  });

  it('refuses an undrop whose name a new lane took, saying how to undrop under another name, and does so', async () => {
    repo = tempRepo();
    const l = await lane('reused');
    writeFileSync(join(l.worktree, 'mine.txt'), 'old work\n');
    await dropLane(db(), l, true);
    const fresh = await lane('reused');
    const io = testIo();
    expect(await laneCli(['undrop', 'reused', '-C', repo.dir], io)).toBe(1);
    expect(io.stderr).toContain('the name reused is taken by a lane made since the drop (tai lane list): undrop it under another name with: tai lane undrop reused --as OTHER');
    expect(existsSync(join(fresh.worktree, 'mine.txt'))).toBe(false);
    const as = testIo();
    expect(await laneCli(['undrop', 'reused', '--as', 'old-reused', '-C', repo.dir], as)).toBe(0);
    expect(readFileSync(join(repo.git('rev-parse', '--path-format=absolute', '--git-common-dir').trim(), 'tai-lanes/old-reused/mine.txt'), 'utf8')).toBe('old work\n');
  });

  it('says there is nothing to undrop, naming the drops there are', async () => {
    repo = tempRepo();
    const io = testIo();
    expect(await laneCli(['undrop', 'never', '-C', repo.dir], io)).toBe(1);
    expect(io.stderr).toContain('nothing to undrop: no saved drop of a lane never in');
    await dropLane(db(), await lane('other'), true);
    const again = testIo();
    expect(await laneCli(['undrop', 'never', '-C', repo.dir], again)).toBe(1);
    expect(again.stderr).toContain('(saved drops here: other)');
  });

  it('gc removes drops saved more than a week ago (by their committer date), keeps newer ones, and takes --older-than and TAI_LANE_DROP_DAYS', async () => {
    repo = tempRepo();
    const now = Date.now();
    await dropLane(db(), await lane('ancient'), true, now - 30 * DAY);
    await dropLane(db(), await lane('old'), true, now - 8 * DAY);
    await dropLane(db(), await lane('recent'), true, now - 2 * DAY);
    const refs = (): string[] => repo.git('for-each-ref', '--format=%(refname)', 'refs/tai/drops/').trim().split('\n').map((r) => r.split('/')[3] ?? '');
    expect(refs()).toEqual(['ancient', 'old', 'recent']);
    const byEnv = testIo({ TAI_LANE_DROP_DAYS: '10' });
    expect(await laneCli(['gc', '-C', repo.dir], byEnv)).toBe(0);
    expect(byEnv.stdout).toMatch(/^removed 1 saved drop older than 10 days: refs\/tai\/drops\/ancient\/\S+ \(2 kept\)/);
    const week = testIo();
    expect(await laneCli(['gc', '-C', repo.dir], week)).toBe(0);
    expect(refs()).toEqual(['recent']);
    const bad = testIo();
    expect(await laneCli(['gc', '--older-than', 'soon', '-C', repo.dir], bad)).toBe(64);
    expect(bad.stderr).toContain("--older-than takes a number of days (0 or more, fractions allowed), not 'soon'");
    expect(await laneCli(['gc', '--older-than', '1', '-C', repo.dir], testIo())).toBe(0);
    expect(repo.git('for-each-ref', 'refs/tai/').trim()).toBe('');
  });
});
