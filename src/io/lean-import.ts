/**
 * The drawn cockpit's modules (Ink, React, yoga) loaded without what they
 * would keep for nothing (figures: docs/perf-log.md, "Memory: the server's
 * Node flags and the idle collection"):
 * - **No fetch while they load.** yoga-layout's loader reads its WebAssembly
 *   with `fetch` when there is one, and Node's fetch loads undici with http,
 *   tls, http2, zlib and the web streams, which tai never uses; without it
 *   yoga decodes the base64 itself.
 * - **No CommonJS file kept that never ran.** An ES module importing a
 *   CommonJS one makes Node read (and keep in `require.cache`) both branches
 *   of `NODE_ENV === 'production' ? require(A) : require(B)`, so React's
 *   development builds sit in memory unless dropped. The server's bundle
 *   (src/build/bundle-server.mjs) holds no development build to drop.
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
