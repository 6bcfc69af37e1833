/**
 * The state database refuses a folder or file that is not the user's own,
 * as the socket folder is refused (docs/security.md): another user's would
 * read the tasks and results and fill the slots.
 */
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, test, vi } from 'vitest';
import { openStateDb, STATE_DB_CACHE_KIB, StateDbForeignError, unsynced } from '../../../src/io/storage/state-db.js';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tai-statedb-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The message openStateDb refuses `path` with. */
function refusal(path: string): string {
  try {
    openStateDb(path).close();
  } catch (err) {
    expect(err).toBeInstanceOf(StateDbForeignError);
    return (err as Error).message;
  }
  throw new Error(`${path} was opened`);
}

const root = process.getuid?.() === 0;

describe('the state folder and database of another user', () => {
  test.runIf(root)('refuses a state folder another user owns, and a symlink to one, naming the owner and what to do', () => {
    const theirs = join(dir, 'theirs');
    mkdirSync(theirs, { mode: 0o700 });
    chownSync(theirs, 4242, 4242);
    expect(refusal(join(theirs, 'tai.db'))).toBe(
      `the state folder ${theirs} belongs to user 4242, not to you (0); refusing to use it: that user could read your tasks and results. ` +
        'Have it removed (it is not yours to remove), or set XDG_STATE_HOME to a folder of your own',
    );
    const link = join(dir, 'link');
    symlinkSync(theirs, link);
    expect(refusal(join(link, 'tai.db'))).toMatch(/^the state folder .*link belongs to user 4242/);
  });

  test.runIf(root)('refuses a database file another user owns, or a symlink to one, in a folder of ours', () => {
    const mine = join(dir, 'mine');
    mkdirSync(mine, { mode: 0o700 });
    const other = join(dir, 'other.db');
    writeFileSync(other, '');
    chownSync(other, 4242, 4242);
    symlinkSync(other, join(mine, 'tai.db'));
    expect(refusal(join(mine, 'tai.db'))).toMatch(/^the state database .*mine\/tai\.db belongs to user 4242, not to you \(0\); refusing to use it/);
  });

  it('refuses a state folder others can write, with the chmod that fixes it', () => {
    const open = join(dir, 'open');
    mkdirSync(open);
    chmodSync(open, 0o777);
    expect(refusal(join(open, 'tai.db'))).toBe(`the state folder ${open} can be written by others (mode 777); refusing to use it: run chmod 700 ${open}`);
  });

  it('opens a folder and database of its own, and makes them when they are missing', () => {
    openStateDb(join(dir, 'new', 'tai.db')).close();
    openStateDb(join(dir, 'new', 'tai.db')).close();
  });
});

describe('the state database connection', () => {
  it('holds a page cache of at most STATE_DB_CACHE_KIB, on a new file and on one that exists', () => {
    const path = join(dir, 'tai.db');
    for (let n = 0; n < 2; n++) {
      const db = openStateDb(path);
      try {
        expect(db.pragma('cache_size', { simple: true })).toBe(-STATE_DB_CACHE_KIB);
        expect(STATE_DB_CACHE_KIB).toBeLessThan(2000);
      } finally {
        db.close();
      }
    }
  });

  it('runs unsynced work at synchronous=NORMAL and puts the level back, its statements prepared once', () => {
    const db = openStateDb(join(dir, 'tai.db'));
    try {
      const level = (): unknown => db.pragma('synchronous', { simple: true });
      const before = level();
      expect(before).not.toBe(1);
      expect(unsynced(db, level)).toBe(1); // NORMAL
      expect(level()).toBe(before);
      const prepare = vi.spyOn(db, 'prepare');
      const pragma = vi.spyOn(db, 'pragma');
      for (let i = 0; i < 10; i++) unsynced(db, () => undefined);
      expect([prepare.mock.calls.length, pragma.mock.calls.length]).toEqual([0, 0]);
      expect(level()).toBe(before);
    } finally {
      db.close();
    }
  });
});
