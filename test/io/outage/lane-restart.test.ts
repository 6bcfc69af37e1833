import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NETWORK_LINE_MAX, restartLane, restartLaneWhenBack, yieldedNetworkStep } from '../../../src/io/outage/lane-restart.js';
import { readLog } from '../../../src/io/outage/outage-store.js';
import type { ProbeSource } from '../../../src/io/outage/probes.js';
import { openStateDb, type StateDb } from '../../../src/io/storage/state-db.js';

const T0 = Date.UTC(2026, 9, 10, 6, 30, 0);
let dir: string;
let work: string;
let db: StateDb;

function git(...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { cwd: work, encoding: 'utf8' });
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tai-lane-'));
  work = join(dir, 'lane-2');
  execFileSync('git', ['init', '-q', work]);
  writeFileSync(join(work, 'a.txt'), 'one\n');
  writeFileSync(join(work, '.gitignore'), 'node_modules/\n');
  git('add', '.');
  git('commit', '-q', '-m', 'first');
  db = openStateDb(join(dir, 'state', 'tai.db'));
});

afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('restarting a lane from its last commit', () => {
  it('saves its edits aside (diff, staged and untracked files), resets the worktree and logs the restart', () => {
    const head = git('rev-parse', 'HEAD').trim();
    writeFileSync(join(work, 'a.txt'), 'one\ntwo\n');
    writeFileSync(join(work, 'b.txt'), 'staged\n');
    git('add', 'b.txt');
    mkdirSync(join(work, 'c'));
    writeFileSync(join(work, 'c', 'd.txt'), 'untracked\n');
    mkdirSync(join(work, 'node_modules'));
    writeFileSync(join(work, 'node_modules', 'kept.js'), 'ignored\n');

    const restart = restartLane(db, {
      lane: 'lane-2',
      worktree: work,
      task: 'add the second line',
      reason: { kind: 'died' },
      stateDir: join(dir, 'state'),
      now: T0,
      outageId: 4,
      service: 'network',
      pid: 77,
    });

    expect(restart).toMatchObject({ lane: 'lane-2', task: 'add the second line', worktree: work, head });
    expect(restart.files).toEqual(['a.txt', 'b.txt', 'c/d.txt']);
    expect(restart.savedTo).toBe(join(dir, 'state', 'saved-edits', `lane-2-20261010T063000.000Z-${head.slice(0, 7)}`));
    const saved = restart.savedTo as string;
    const patch = readFileSync(join(saved, 'changes.patch'), 'utf8');
    expect(patch).toContain('+two');
    expect(patch).toContain('+staged');
    expect(readFileSync(join(saved, 'untracked', 'c', 'd.txt'), 'utf8')).toBe('untracked\n');
    expect(JSON.parse(readFileSync(join(saved, 'lane.json'), 'utf8'))).toMatchObject({
      lane: 'lane-2', head, task: 'add the second line', why: 'its agent died to the outage', tracked: ['a.txt', 'b.txt'], untracked: ['c/d.txt'],
    });

    expect(git('status', '--porcelain')).toBe('');
    expect(git('rev-parse', 'HEAD').trim()).toBe(head);
    expect(readFileSync(join(work, 'a.txt'), 'utf8')).toBe('one\n');
    expect(existsSync(join(work, 'c'))).toBe(false);
    expect(existsSync(join(work, 'node_modules', 'kept.js'))).toBe(true);

    // The saved diff still applies to the last commit, for whoever reviews it.
    execFileSync('git', ['apply', '--check', join(saved, 'changes.patch')], { cwd: work });
    expect(readLog(db, { kind: 'lane-restart' }).map(({ pid, outageId, detail }) => [pid, outageId, detail])).toEqual([
      [77, 4, `lane-2 (died) restarts from ${head.slice(0, 7)}; 3 files saved aside to ${saved}; task: add the second line`],
    ]);
  });

  it('restarts a clean lane that handed back with NETWORK: without saving anything', () => {
    const head = git('rev-parse', 'HEAD').trim();
    const restart = restartLane(db, {
      lane: 'lane-3', worktree: work, task: 'push the branch', reason: { kind: 'yielded', step: 'git push origin lane-3' }, stateDir: join(dir, 'state'), now: T0,
    });
    expect(restart.savedTo).toBeNull();
    expect(restart.files).toEqual([]);
    expect(readLog(db, { kind: 'lane-restart' }).map((row) => row.detail)).toEqual([
      `lane-3 (yielded "NETWORK: git push origin lane-3") restarts from ${head.slice(0, 7)}; no uncommitted edits; task: push the branch`,
    ]);
  });
});

describe('restarting a lane once the network is back', () => {
  /** A network probe that fails `failures` times, then succeeds. */
  const probesFailing = (failures: number): ProbeSource => {
    let runs = 0;
    return () => async () => ({ ok: runs++ >= failures, detail: 'scripted' });
  };

  it('waits on the shared probe, then saves the edits aside and resets the lane', async () => {
    writeFileSync(join(work, 'a.txt'), 'one\nhalf\n');
    const end = await restartLaneWhenBack(
      { db, probes: probesFailing(2), scale: 0.0001 },
      { lane: 'lane-2', worktree: work, task: 'push it', reason: { kind: 'yielded', step: 'git push' }, stateDir: join(dir, 'state') },
    );
    expect(end.kind).toBe('restarted');
    expect(git('status', '--porcelain')).toBe('');
    expect(readLog(db).map((row) => row.kind)).toEqual([
      'outage-open', 'lane-wait',
      'probe-claim', 'probe-output', 'probe-fail',
      'probe-claim', 'probe-output', 'probe-fail',
      'probe-claim', 'probe-output', 'probe-ok', 'outage-end',
      'lane-restart',
    ]);
  });

  it('leaves the lane untouched and on the record at give-up', async () => {
    writeFileSync(join(work, 'a.txt'), 'one\nhalf\n');
    const end = await restartLaneWhenBack(
      { db, probes: probesFailing(99), scale: 0.0001, pollMs: 50 },
      { lane: 'lane-2', worktree: work, task: 'push it', reason: { kind: 'died' }, stateDir: join(dir, 'state') },
    );
    expect(end.kind).toBe('gave-up');
    expect(git('status', '--porcelain')).toBe(' M a.txt\n');
    expect(readLog(db, { kind: ['lane-wait', 'lane-left'] }).map((row) => row.detail)).toEqual([
      'lane-2: its agent died to the outage',
      'lane-2: push it',
    ]);
  });
});

describe('a hand-back with a final NETWORK: line', () => {
  it('names the network step only when it is the last non-empty line', () => {
    expect(yieldedNetworkStep('edited two files\nNETWORK: git push origin lane-2\n\n')).toBe('git push origin lane-2');
    expect(yieldedNetworkStep('NETWORK: git push\nthen I went on')).toBeUndefined();
    expect(yieldedNetworkStep('')).toBeUndefined();
  });

  it('reads the same step as splitting the whole text into lines would, for any mix of lines, blanks and carriage returns', () => {
    const splitWhole = (text: string): string | undefined => {
      const last = text.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== '').at(-1);
      return (last === undefined ? null : /^NETWORK:\s*(.+)$/.exec(last))?.[1]?.trim();
    };
    const atoms = ['NETWORK:', 'NETWORK: git push', ' ', '\t', '\n', '\r', '\r\n', 'x', '\u2028', '\u00a0', 'NETWORK:\n'];
    let seed = 11;
    for (let n = 0; n < 3000; n++) {
      let text = '';
      for (let k = (n % 9) + 1; k > 0; k--) {
        seed = (seed * 1103515245 + 12345) & 0x7fffffff;
        text += atoms[seed % atoms.length];
      }
      expect(yieldedNetworkStep(text), JSON.stringify(text)).toBe(splitWhole(text));
    }
  });

  it('finds the step after megabytes of text without a line end, and takes a last line longer than NETWORK_LINE_MAX for no step', () => {
    expect(yieldedNetworkStep(`${'x'.repeat(3_000_000)}\nNETWORK: git push\n${' '.repeat(100_000)}\n`)).toBe('git push');
    expect(yieldedNetworkStep(`NETWORK: ${'x'.repeat(NETWORK_LINE_MAX)}`)).toBeUndefined();
  });
});
