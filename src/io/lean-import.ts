/**
 * The drawn cockpit's modules (Ink, React, yoga) loaded without what they would keep for nothing (docs/perf-log.md,
 * "Memory: the server's Node flags and the idle collection"): no global `fetch` while they load (yoga would use it,
 * and it loads undici), and no CommonJS file kept that never ran (Node reads both branches of a NODE_ENV require).
 */
import { dropUnloadedCommonJs, withoutFetch } from './node-internals.js';

/**
 * Runs `load` (an `import()` of modules that import Ink) with the global `fetch` unset, puts Node's own back once
 * settled, then drops the CommonJS files read but never run (both in node-internals.ts, off with TAI_INTERNALS=0).
 */
export async function leanImport<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await withoutFetch(load);
  } finally {
    dropUnloadedCommonJs();
  }
}
