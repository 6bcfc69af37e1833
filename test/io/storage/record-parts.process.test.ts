/** A record whose writer was killed before its last part (the rest of the parts are tested in process: record-parts.test.ts). */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { builtStoreScript } from '../../helpers/built-store.js';
import { dbsClosedAfterEach, freshDbPath, partsOf } from '../../helpers/record-db.js';
import { RecordStore } from '../../../src/io/storage/records.js';

const open = dbsClosedAfterEach('tai-recparts-');
const freshPath = (): string => freshDbPath('tai-recparts-');

describe('a record stored in parts, its writer killed', () => {
  it('is removed on the next open when its writer died before the last part; a live writer\'s draft is left alone', () => {
    const path = freshPath();
    const script = `${builtStoreScript(path)}
      const text = 'a'.repeat(100000);
      const draft = store.begin({ label: 'killed', id: 'rkilled' }, Date.now());
      store.writePart(draft, text);
      store.writePart(draft, text);
      process.kill(process.pid, 'SIGKILL');`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '' } });
    expect(child.signal).toBe('SIGKILL');
    const db = open(path);
    // This process's own draft, begun before the next open.
    const first = new RecordStore(db);
    const live = first.begin({ label: 'live', id: 'rlive' }, Date.now());
    first.writePart(live, 'b'.repeat(10));
    const store = new RecordStore(db);
    expect(store.read('rkilled')).toBeUndefined();
    expect(db.prepare("SELECT count(*) AS n FROM records WHERE id = 'rkilled'").get()).toEqual({ n: 0 });
    expect(partsOf(db)).toEqual([{ start: 0, len: 10 }]);
    store.finish(live);
    expect(store.read('rlive')?.text).toBe('b'.repeat(10));
  });
});
