/**
 * Real temporary git repositories for the lane tests: `git init` in a mkdtemp
 * folder, an identity through the GIT_* environment (never the user's
 * config), and a state database of its own.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { openStateDb, type StateDb } from '../../src/io/storage/state-db.js';
import { TEST_GIT_ENV, testEnv } from './test-env.js';

/** The identity every test commit is made with (the one every spawned tai gets too). */
export const GIT_ENV = TEST_GIT_ENV;

// The lane code runs git with process.env: give it the same identity.
Object.assign(process.env, GIT_ENV);

/** A temporary repository with its own state folder. */
export interface TempRepo {
  readonly dir: string;
  readonly stateDir: string;
  readonly db: StateDb;
  git(...args: string[]): string;
  write(file: string, text: string): void;
  /** Writes the files and commits them. */
  commit(message: string, files: Record<string, string>): string;
  cleanup(): void;
}

/** Makes a repository on branch `main`; with `commits: false` it has none. */
export function tempRepo(options: { commits?: boolean } = {}): TempRepo {
  const root = mkdtempSync(join(tmpdir(), 'tai-lanes-'));
  const dir = join(root, 'repo');
  mkdirSync(dir);
  const stateDir = join(root, 'state');
  const git = (...args: string[]): string => execFileSync('git', args, { cwd: dir, env: testEnv(), encoding: 'utf8' });
  git('init', '--quiet', '--initial-branch=main');
  const write = (file: string, text: string): void => {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  };
  const commit = (message: string, files: Record<string, string>): string => {
    for (const [file, text] of Object.entries(files)) write(file, text);
    git('add', '--all');
    git('commit', '--quiet', '-m', message);
    return git('rev-parse', 'HEAD').trim();
  };
  if (options.commits !== false) commit('first', { 'README.md': 'hello\n', 'src/a.txt': 'one\ntwo\nthree\n' });
  const db = openStateDb(join(stateDir, 'tai.db'));
  return {
    dir,
    stateDir,
    db,
    git,
    write,
    commit,
    cleanup: () => {
      db.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
