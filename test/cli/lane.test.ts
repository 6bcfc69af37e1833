import { describe, expect, it, afterEach } from 'vitest';
import { run as spawnCli } from '../../src/cli/spawn/spawn.js';
import { run as laneCli } from '../../src/cli/lanes/lane.js';
import { tempRepo, type TempRepo } from '../helpers/git-repo.js';
import { recordingIo } from '../helpers/recording-io.js';

let repo: TempRepo;
afterEach(() => repo?.cleanup());

const testIo = (stateHome: string) => recordingIo({ state: stateHome, inherit: process.env });

describe('tai spawn --lane and tai lane', () => {
  it('runs an agent in a new lane, lists it from a new process, prints its diff and merges it', async () => {
    repo = tempRepo();
    const io = testIo(repo.stateDir);
    expect(await spawnCli(['--lane', 'cli', '--label', 'writer', '--prompt', 'write n', '--cwd', repo.dir, '--', 'sh', '-c', 'echo hi > n.txt'], io)).toBe(0);
    expect(io.stderr).toContain('runs in lane cli');
    const list = testIo(repo.stateDir);
    expect(await laneCli(['list', '-C', repo.dir], list)).toBe(0);
    expect(list.stdout).toMatch(/^LANE\s+AGENT\s+BRANCH/);
    expect(list.stdout).toMatch(/cli\s+writer done\s+tai\/cli\s+main@\w{7}\s+\+0\/-0\s+1 file \+1 −0\s+uncommitted/);
    const diff = testIo(repo.stateDir);
    expect(await laneCli(['diff', 'cli', '-C', repo.dir], diff)).toBe(0);
    expect(diff.stdout).toContain('+hi');
    expect(diff.stdout).not.toContain('\x1b[');
    const drop = testIo(repo.stateDir);
    expect(await laneCli(['drop', 'cli', '-C', repo.dir], drop)).toBe(1);
    expect(drop.stderr).toContain('uncommitted edits in 1 file: nothing was removed');
    const merge = testIo(repo.stateDir);
    expect(await laneCli(['merge', 'cli', '-C', repo.dir], merge)).toBe(0);
    expect(merge.stdout).toContain('merged the lane cli into main (fast-forward');
    expect(repo.git('log', '-1', '--format=%s').trim()).toBe('write n');
    expect(await laneCli(['drop', 'cli', '-C', repo.dir], testIo(repo.stateDir))).toBe(0);
  });

  it('refuses --lane outside a git repository with exit 64', async () => {
    repo = tempRepo();
    const io = testIo(repo.stateDir);
    expect(await spawnCli(['--lane', '--cwd', repo.stateDir, '--', 'true'], io)).toBe(64);
    expect(io.stderr).toContain('lanes need a git repository');
  });
});

describe('tai lane on a bad verb', () => {
  it('says an unknown subcommand is one, with the list, exit 64', async () => {
    repo = tempRepo();
    const io = testIo(repo.stateDir);
    expect(await laneCli(['bogus', '-C', repo.dir], io)).toBe(64);
    expect(io.stderr).toMatch(/^tai lane: unknown subcommand 'bogus': it is one of list, diff, merge, drop, restart, undrop, order, gc\nusage: tai lane list/);
  });
});
