/**
 * Two `tai lane merge` runs into one branch at once, as two real processes of
 * the built CLI (`npm run build` first) in a real temporary repository. A
 * reference-transaction hook logs every branch git moves, in order, and can
 * hold a merge inside its lock (after its lane's commit, at a gate file) so
 * the test sees the other merge wait, the main checkout while one is held,
 * and what a SIGKILL of the holder leaves.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeLane } from '../../src/io/lanes/lanes.js';
import { openStateDb, stateDir, STATE_DB_FILE } from '../../src/io/storage/state-db.js';
import { tempRepo, type TempRepo } from '../helpers/git-repo.js';
import { runTai, startTai, TAI_CLI } from '../helpers/tai-cli.js';
import { until } from '../helpers/until.js';

const agent = { kind: 'command', argv: ['true'], label: 'writer' };
let repo: TempRepo;
afterEach(() => repo?.cleanup());

/** The repository with lanes `a` and `b` holding uncommitted edits, the hook in place, and the CLI's environment. */
async function twoLanes(edits: { a: Record<string, string>; b: Record<string, string> }) {
  repo = tempRepo();
  const env = { XDG_STATE_HOME: repo.stateDir, TAI_PLEXER_SOCKET: '' };
  const db = openStateDb(join(stateDir(env), STATE_DB_FILE));
  try {
    for (const name of ['a', 'b'] as const) {
      const { lane } = await makeLane(db, { cwd: repo.dir, name, task: `work of ${name}`, agent, now: 1 });
      for (const [file, text] of Object.entries(edits[name])) writeFileSync(join(lane.worktree, file), text);
    }
  } finally {
    db.close();
  }
  const log = join(repo.stateDir, 'refs.log');
  const hook = join(repo.dir, '.git', 'hooks', 'reference-transaction');
  writeFileSync(
    hook,
    `#!/bin/sh
[ "$1" = committed ] || exit 0
while read -r old new ref; do
  case "$ref" in refs/heads/*) echo "$ref" >> '${log}' ;; esac
  case "$ref" in refs/heads/tai/*)
    if [ -n "$TAI_TEST_GATE" ]; then
      : > "$TAI_TEST_GATE.held"
      n=0; while [ ! -e "$TAI_TEST_GATE" ] && [ $n -lt 500 ]; do sleep 0.05; n=$((n+1)); done
    fi ;;
  esac
done
`,
  );
  chmodSync(hook, 0o755);
  const moved = (): string[] => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter((l) => l !== '') : []);
  return { env, moved, gate: join(repo.stateDir, 'gate') };
}

/** The main checkout is not mid-merge: nothing uncommitted, no MERGE_HEAD. */
function mainIsWhole(): void {
  expect(repo.git('status', '--porcelain')).toBe('');
  expect(existsSync(join(repo.dir, '.git', 'MERGE_HEAD'))).toBe(false);
}

describe.runIf(existsSync(TAI_CLI))('tai lane merge of two lanes into one branch at once', () => {
  it('runs them one at a time under the lock: the second waits, saying for whom, and both land', async () => {
    const { env, moved, gate } = await twoLanes({ a: { 'a.txt': 'from a\n' }, b: { 'b.txt': 'from b\n' } });
    const first = repo.git('rev-parse', 'main').trim();
    const a = startTai(['lane', 'merge', 'a', '-C', repo.dir], { ...env, TAI_TEST_GATE: gate });
    await until(() => existsSync(`${gate}.held`), { what: 'merge a to hold the lock at the gate', explain: a.err });
    const b = startTai(['lane', 'merge', 'b', '-C', repo.dir], env);
    await until(() => b.err().includes('waiting for it'), { what: 'merge b to wait for the lock', explain: b.err });
    expect(b.err()).toBe(`tai: another merge into main runs (process ${a.child.pid}): waiting for it (up to 30 s)\n`);
    // Merge a holds the lock with its lane committed: main has not moved and its checkout is whole.
    expect(repo.git('rev-parse', 'main').trim()).toBe(first);
    mainIsWhole();
    writeFileSync(gate, '');
    const [ra, rb] = await Promise.all([a.done, b.done]);
    expect(ra.code).toBe(0);
    expect(ra.out).toContain('merged the lane a into main (fast-forward');
    expect(rb.code).toBe(0);
    expect(rb.out).toContain('merged the lane b into main (merge commit');
    // One at a time: each merge commits its lane and moves main before the other starts.
    expect(moved()).toEqual(['refs/heads/tai/a', 'refs/heads/main', 'refs/heads/tai/b', 'refs/heads/main']);
    expect(readFileSync(join(repo.dir, 'a.txt'), 'utf8')).toBe('from a\n');
    expect(readFileSync(join(repo.dir, 'b.txt'), 'utf8')).toBe('from b\n');
    expect(repo.git('rev-list', '--parents', '-1', 'main').trim().split(' ')).toHaveLength(3);
    mainIsWhole();
  });

  it('lands one of two conflicting lanes started together and stops the other naming the file, main whole', async () => {
    const { env } = await twoLanes({ a: { 'README.md': 'from a\n' }, b: { 'README.md': 'from b\n' } });
    const runs = await Promise.all(['a', 'b'].map((name) => runTai(['lane', 'merge', name, '-C', repo.dir], env)));
    expect(runs.map((r) => r.code).sort()).toEqual([0, 1]);
    const won = runs.findIndex((r) => r.code === 0);
    const [winner, loser] = won === 0 ? ['a', 'b'] : ['b', 'a'];
    expect(runs[1 - won]?.err).toContain(`tai lane merge: the lane ${loser} conflicts with main in 1 file: README.md; nothing was merged and the main checkout is untouched`);
    expect(readFileSync(join(repo.dir, 'README.md'), 'utf8')).toBe(`from ${winner}\n`);
    mainIsWhole();
  });

  it('frees the lock when the merging process is killed with SIGKILL: the waiting merge goes on, and a later one too', async () => {
    const { env, moved, gate } = await twoLanes({ a: { 'a.txt': 'from a\n' }, b: { 'b.txt': 'from b\n' } });
    const a = startTai(['lane', 'merge', 'a', '-C', repo.dir], { ...env, TAI_TEST_GATE: gate }, { detached: true });
    await until(() => existsSync(`${gate}.held`), { what: 'merge a to hold the lock at the gate', explain: a.err });
    const b = startTai(['lane', 'merge', 'b', '-C', repo.dir], env);
    await until(() => b.err().includes('waiting for it'), { what: 'merge b to wait for the lock', explain: b.err });
    // The holder and its git and hook, as one group: nothing of it runs a `finally`.
    process.kill(-(a.child.pid ?? 0), 'SIGKILL');
    expect((await a.done).code).toBe(-1);
    const rb = await b.done;
    expect(rb.code).toBe(0);
    expect(rb.out).toContain('merged the lane b into main (fast-forward');
    mainIsWhole();
    // Merge a died after committing its lane, before moving main: merged again, it lands.
    const again = await runTai(['lane', 'merge', 'a', '-C', repo.dir], env);
    expect(again.err).toBe('');
    expect(again.out).toContain('merged the lane a into main (merge commit');
    expect(moved()).toEqual(['refs/heads/tai/a', 'refs/heads/tai/b', 'refs/heads/main', 'refs/heads/main']);
    expect(readFileSync(join(repo.dir, 'a.txt'), 'utf8')).toBe('from a\n');
    mainIsWhole();
  });
});
