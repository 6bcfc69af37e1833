/**
 * `npm run bench -- lanes`: how long making a lane takes (one `git worktree
 * add` plus its checks and row), for a repository the size of this one and
 * for one of 10,000 files, beside a bare `git worktree add` as the peer.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeLane } from '../../src/io/lanes/lanes.js';
import { openStateDb } from '../../src/io/storage/state-db.js';

const ENV = { ...process.env, GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'b@b.invalid', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'b@b.invalid' };

/** A temporary repository of `files` files of 20 lines, committed on `main`. */
export function repoOf(files: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'tai-bench-lanes-'));
  const git = (...args: string[]): void => void execFileSync('git', args, { cwd: dir, env: ENV });
  git('init', '--quiet', '--initial-branch=main');
  for (let i = 0; i < files; i++) {
    const sub = join(dir, `d${Math.floor(i / 100)}`);
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, `f${i}.txt`), `file ${i}\n`.repeat(20));
  }
  git('add', '--all');
  git('commit', '--quiet', '-m', 'files');
  return dir;
}

/** Prints the table. */
export async function run(options: { runs?: number } = {}): Promise<void> {
  Object.assign(process.env, ENV);
  const runs = options.runs ?? 3;
  const here = Number(execFileSync('git', ['ls-files'], { encoding: 'utf8' }).split('\n').filter(Boolean).length);
  process.stdout.write('\n## lanes: making one\n\n| files | tai lane (ms, median) | bare git worktree add (ms, median) |\n|---:|---:|---:|\n');
  for (const files of [here, 10_000]) {
    const dir = repoOf(files);
    const db = openStateDb(join(dir, '.git', 'bench-state.db'));
    const lane: number[] = [];
    const bare: number[] = [];
    for (let i = 0; i < runs; i++) {
      let t = performance.now();
      await makeLane(db, { cwd: dir, name: `bench-${i}`, task: '', agent: { kind: 'command', argv: ['true'], label: 'b' }, now: Date.now() });
      lane.push(performance.now() - t);
      t = performance.now();
      execFileSync('git', ['worktree', 'add', '--quiet', '-b', `bare-${i}`, join(dir, '.git', `bare-${i}`), 'HEAD'], { cwd: dir, env: ENV });
      bare.push(performance.now() - t);
    }
    db.close();
    rmSync(dir, { recursive: true, force: true });
    process.stdout.write(`| ${files} | ${median(lane).toFixed(0)} | ${median(bare).toFixed(0)} |\n`);
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}
