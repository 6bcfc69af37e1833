/**
 * The drawn cockpit's modules (Ink, React, yoga) loaded without what they
 * would keep for nothing (issue 11: the cockpit with 8 panels at most 80 MB
 * RSS; docs/perf-log.md, "Memory"). Two things, each measured on Node
 * 20.20:
 * - **No fetch while they load.** yoga-layout's emscripten loader reads its
 *   WebAssembly from a `data:` URL, with `fetch` when `typeof fetch ===
 *   'function'`, else by decoding the base64 itself. Node's fetch loads
 *   undici on its first call, and with it http, tls, http2, zlib,
 *   worker_threads and the web streams (38 of the server's 192 built-in
 *   modules), which tai never uses. `import('yoga-layout')` alone then a
 *   full collection: RSS 56.9 -> 49.3 MB; the server with 8 silent panels
 *   at rest about 3.5 MB less (85.6 / 86.2 -> 83.0 / 81.3 MB, same run).
 * - **No CommonJS file kept that never ran.** When an ES module imports a
 *   CommonJS one, Node reads the files it may re-export to learn their
 *   names (cjs-module-lexer), both branches of `if (NODE_ENV ===
 *   'production') module.exports = require(A) else require(B)`, and keeps
 *   each in `require.cache` with its source: React's development builds,
 *   825 KB of text (react-reconciler's alone 750 KB). Those entries never
 *   loaded are dropped: heap after a full collection 13.55 -> 12.77 MB.
 */
import { dropUnloadedCommonJs, withoutFetch } from './node-internals.js';

/**
 * Runs `load` (an `import()` of modules that import Ink) with the global
 * `fetch` set to undefined, puts Node's own property back once it has
 * settled, then drops the CommonJS files that were read but never ran
 * (both in node-internals.ts, off with TAI_INTERNALS=0).
 */
export async function leanImport<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await withoutFetch(load);
  } finally {
    dropUnloadedCommonJs();
  }
}
