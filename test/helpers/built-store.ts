/** The opening of a script a child node runs against the built record store (dist/: `npm test` builds first). */
import { join, resolve } from 'node:path';

/** Imports the built state database and record store and opens `path` as `store`. */
export function builtStoreScript(path: string): string {
  const dist = resolve('dist/src/io/storage');
  return `
      const { openStateDb } = await import(${JSON.stringify(join(dist, 'state-db.js'))});
      const { RecordStore } = await import(${JSON.stringify(join(dist, 'records.js'))});
      const store = new RecordStore(openStateDb(${JSON.stringify(path)}));`;
}
