/**
 * Ink's layout engine loaded without Node's fetch (issue 11: the cockpit
 * with 8 panels at most 80 MB RSS; docs/performance.md, "Memory").
 * yoga-layout's emscripten loader reads its WebAssembly from a `data:` URL,
 * with `fetch` when `typeof fetch === 'function'`, else by decoding the
 * base64 itself. Node's fetch is a lazy global: its first use loads undici
 * and with it http, tls, http2, zlib, worker_threads and the web streams
 * (77 of the server's 192 built-in modules), which tai never uses. Hidden
 * while Ink's modules load (yoga's top-level await included), restored
 * after, still lazy. Measured on Node 20.20, `import('yoga-layout')` alone
 * then a full collection: RSS 56.9 -> 49.3 MB (anonymous 14.1 -> 9.7).
 */

/**
 * Runs `load` (an `import()` of modules that import Ink) with the global
 * `fetch` set to undefined, and puts Node's own property back once it has
 * settled. Where the property cannot be replaced, `load` runs as it is.
 */
export async function withoutFetch<T>(load: () => Promise<T>): Promise<T> {
  const own = Object.getOwnPropertyDescriptor(globalThis, 'fetch');
  // Reading the descriptor does not run Node's lazy getter (that would load undici).
  if (own === undefined || own.configurable !== true) return load();
  Object.defineProperty(globalThis, 'fetch', { value: undefined, configurable: true, writable: true, enumerable: own.enumerable ?? false });
  try {
    return await load();
  } finally {
    Object.defineProperty(globalThis, 'fetch', own);
  }
}
