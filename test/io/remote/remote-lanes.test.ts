/**
 * Lanes on another host (docs/remote.md, "Lanes on a host"): `tai spawn
 * --host NAME --lane L --cwd REPO` makes the worktree in the host's
 * repository and runs the agent there; `tai lane diff|merge|drop` of it run
 * their git on the host through its connection. The host is this machine
 * through the private sshd of test/helpers/sshd.ts, so its repository is a
 * temporary one here. The built CLI (npm run build first).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSshd, TEST_HOST, type TestSshd } from '../../helpers/sshd.js';
import { runTai } from '../../helpers/tai-cli.js';

let server: TestSshd;
let home: string;
let repo: string;
let env: NodeJS.ProcessEnv;

const git = (...args: string[]): string => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8' });

beforeAll(async () => {
  server = await startSshd();
  home = mkdtempSync(join(tmpdir(), 'tai-remote-lanes-'));
  repo = join(home, 'host-repo');
  mkdirSync(repo);
  git('init', '--quiet', '--initial-branch=main');
  // The host's git uses the host's config: this repository carries its own identity.
  git('config', 'user.name', 'Host User');
  git('config', 'user.email', 'host@example.invalid');
  writeFileSync(join(repo, 'file.txt'), 'original\n');
  git('add', '-A');
  git('commit', '--quiet', '-m', 'first');
  env = { XDG_STATE_HOME: join(home, 'state'), TAI_SSH_CONFIG: server.config, TAI_PLEXER_SOCKET: '', NO_COLOR: '1', TERM: 'dumb' };
});
afterAll(async () => {
  await server?.stop();
  rmSync(home, { recursive: true, force: true });
});

describe('a lane on another host', () => {
  it("is made in the host's repository, its agent runs in it, and tai lane diff, merge and drop work through the connection", { timeout: 120_000 }, async () => {
    const worktree = join(repo, '.git', 'tai-lanes', 'fix');
    const spawned = await runTai(['spawn', '--host', TEST_HOST, '--lane', 'fix', '--cwd', repo, '--', 'sh', '-c', 'pwd; echo changed > file.txt; echo new > new.txt'], env);
    expect(spawned.err).toContain(`tai spawn: lane fix on ${TEST_HOST}: worktree ${worktree} on branch tai/fix\n`);
    expect(spawned.out).toBe(`${worktree}\n`);
    expect(spawned.code).toBe(0);
    expect(git('branch', '--list', 'tai/fix')).toContain('tai/fix');
    expect(readFileSync(join(worktree, 'file.txt'), 'utf8')).toBe('changed\n');
    expect(readFileSync(join(repo, 'file.txt'), 'utf8')).toBe('original\n');

    const diff = await runTai(['lane', 'diff', 'fix', '-C', home], env);
    expect(diff.code).toBe(0);
    expect(diff.out).toContain('-original\n+changed\n');
    expect(diff.out).toContain('+++ b/new.txt');

    const refused = await runTai(['lane', 'drop', 'fix', '-C', home], env);
    expect(refused.err).toBe(`tai lane drop: the lane fix on ${TEST_HOST} has work not merged into main: merge it (tai lane merge fix) or drop it with --force\n`);
    expect(refused.code).toBe(1);

    const merged = await runTai(['lane', 'merge', 'fix', '-C', home], env);
    expect(merged.err).toMatch(/^tai: committed the lane's uncommitted edits on taitest as [0-9a-f]{7} /);
    expect(merged.out).toMatch(new RegExp(`^merged the lane fix into main on ${TEST_HOST} \\(now [0-9a-f]{7}\\); drop it with: tai lane drop fix\\n$`));
    expect(merged.code).toBe(0);
    expect(readFileSync(join(repo, 'file.txt'), 'utf8')).toBe('changed\n');
    expect(readFileSync(join(repo, 'new.txt'), 'utf8')).toBe('new\n');

    const dropped = await runTai(['lane', 'drop', 'fix', '-C', home], env);
    expect(dropped.out).toBe(`dropped the lane fix on ${TEST_HOST}: worktree ${worktree}, branch tai/fix\n`);
    expect(dropped.code).toBe(0);
    expect(existsSync(worktree)).toBe(false);
    expect(git('branch', '--list', 'tai/fix')).toBe('');
  });

  it('is refused with exit 64 when --cwd on the host is not a repository, leaving no lane', async () => {
    const plain = join(home, 'not-a-repo');
    mkdirSync(plain);
    const run = await runTai(['spawn', '--host', TEST_HOST, '--lane', 'nope', '--cwd', plain, '--', 'true'], env);
    expect(run.err).toContain(`tai spawn: lanes need a git repository: ${plain} on ${TEST_HOST} is not inside one`);
    expect(run.code).toBe(64);
    expect((await runTai(['lane', 'list', '-C', home], env)).out).toBe('no lanes: tai spawn --lane makes one\n');
  });
});
