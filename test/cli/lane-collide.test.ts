import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { run as laneCli } from '../../src/cli/lanes/lane.js';
import { makeLane } from '../../src/io/lanes/lanes.js';
import type { StoredLane } from '../../src/io/lanes/lane-store.js';
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

const testIo = () => recordingIo({ state: repo.stateDir, inherit: process.env });

function db(): StateDb {
  cliDb ??= openStateDb(join(stateDir(testIo().env), STATE_DB_FILE));
  return cliDb;
}

async function lane(name: string, files: Record<string, string>, commit: boolean): Promise<StoredLane> {
  const made = await makeLane(db(), { cwd: repo.dir, name, task: name, agent: { kind: 'command', argv: ['true'], label: name }, now: Date.now() });
  for (const [file, text] of Object.entries(files)) writeFileSync(join(made.lane.worktree, file), text);
  if (commit) repo.git('-C', made.lane.worktree, 'commit', '--quiet', '-am', `work of ${name}`);
  return made.lane;
}

/** wide conflicts with both narrow lanes; they do not conflict with each other. */
async function threeLanes(): Promise<void> {
  repo = tempRepo();
  await lane('wide', { 'src/a.txt': 'ONE\ntwo\nthree\n', 'README.md': 'HELLO\n' }, false);
  await lane('left', { 'src/a.txt': 'uno\ntwo\nthree\n' }, true);
  await lane('right', { 'README.md': 'hallo\n' }, false);
}

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = testIo();
  const code = await laneCli([...args, '-C', repo.dir], io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

describe('lanes that collide', () => {
  it('tai lane order puts the two lanes that conflict with nobody else first and the lane that conflicts with both last', async () => {
    await threeLanes();
    const order = await cli('order');
    expect(order.code, order.stderr).toBe(0);
    expect(order.stdout).toContain('merge order for 3 lanes');
    expect(order.stdout).toContain('(1 conflicted merge, the fewest possible)');
    expect(order.stdout).toMatch(/1\. left\s+merges clean\n\s+2\. right\s+merges clean\n\s+3\. wide\s+will conflict with left \(src\/a\.txt\), right \(README\.md\)\n/);
  });

  it('tai lane list names the other lane and the file on both lanes, with same lines', async () => {
    await threeLanes();
    const list = await cli('list');
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/COLLIDES WITH/);
    expect(list.stdout).toMatch(/\nwide .*⚠ left: src\/a\.txt \(same lines\) · ⚠ right: README\.md \(same lines\)\n/);
    expect(list.stdout).toMatch(/\nleft .*⚠ wide: src\/a\.txt \(same lines\)\n/);
    expect(list.stdout).toMatch(/\nright .*⚠ wide: README\.md \(same lines\)\n/);
    const json = await cli('list', '--json');
    const rows = JSON.parse(json.stdout) as { lane: { name: string }; collisions: { other: string; files: string[] }[] }[];
    expect(rows.find((r) => r.lane.name === 'left')?.collisions).toEqual([{ other: 'wide', files: ['src/a.txt'], sameLines: ['src/a.txt'] }]);
  });

  it('tai lane merge names the other lane the merge will conflict with, and the file', async () => {
    await threeLanes();
    const merge = await cli('merge', 'left');
    expect(merge.code, merge.stderr).toBe(0);
    expect(merge.stderr).toContain('tai: the lane wide (src/a.txt) now conflicts with main: before merging it, resolve in the lane');
    expect(merge.stderr).not.toContain('right (');
    // The check changed no lane: wide's edits are still uncommitted, its index untouched.
    expect(repo.git('-C', join(repo.git('rev-parse', '--path-format=absolute', '--git-common-dir').trim(), 'tai-lanes/wide'), 'status', '--porcelain')).toBe(' M README.md\n M src/a.txt\n');
  });
});

describe('lanes that collide, with a git older than 2.38', () => {
  it('guesses the conflicts from the lines both lanes changed, and says so', async () => {
    await threeLanes();
    // A git that says it is 2.37 and is otherwise the real one: merge-tree --write-tree is not used.
    const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    const bin = mkdtempSync(join(tmpdir(), 'tai-old-git-'));
    writeFileSync(join(bin, 'git'), `#!/bin/sh\nif [ "$1" = version ]; then echo "git version 2.37.1"; exit 0; fi\nexec ${real} "$@"\n`);
    chmodSync(join(bin, 'git'), 0o755);
    const path = process.env['PATH'];
    process.env['PATH'] = `${bin}:${path ?? ''}`;
    try {
      const order = await cli('order');
      expect(order.code, order.stderr).toBe(0);
      expect(order.stdout).toMatch(/3\. wide\s+will conflict with left \(src\/a\.txt\), right \(README\.md\)\n/);
      expect(order.stdout).toContain('(git version 2.37.1 has no git merge-tree --write-tree (git 2.38): conflicts are guessed from the lines both lanes changed)');
      const merge = await cli('merge', 'left');
      expect(merge.code, merge.stderr).toBe(0);
      expect(merge.stderr).toContain('conflicts are guessed from the lines both lanes changed; not checked: tai lane order lists the lanes that change the same lines');
    } finally {
      process.env['PATH'] = path;
    }
  });
});
