/**
 * The Node flags the cockpit's server is started with (tai spawns it with `process.execPath`, so it chooses them): 8
 * panels within the memory goal with no more streaming CPU (docs/performance.md, "Optimisations that stay"). Each was
 * measured beside tmux (docs/perf-log.md, "Memory: the server's Node flags"); those left out, and why, are in
 * docs/perf-log.md, "Figures taken out of code comments". An unknown flag stops node: server-flags.test.ts checks them.
 */
import { internalsOn } from '../node-internals.js';

/** The flags, in the order they go before the script on the server's command line. */
export const SERVER_NODE_FLAGS: readonly string[] = [
  // Exposes gc() so the idle collector (src/io/idle-collect.ts) runs one full collection once output goes quiet: V8
  // then shrinks the young generation it grew while streaming, and compacts the old space for that collection alone
  // (--compact-on-every-full-gc as a flag would compact at every full collection while streaming too).
  '--expose-gc',
  // One V8 worker thread instead of one per core (background compilation,
  // concurrent marking and sweeping): fewer threads and malloc arenas, less
  // RSS at rest, and the same streaming CPU (the same work, on fewer threads).
  '--v8-pool-size=1',
  // No memory reducer: its incremental collections, started by ours, cost CPU
  // at rest for no RSS (it does not shrink the new space; the idle collection
  // does); streaming is unchanged (the reducer acts only when allocation is low).
  '--no-memory-reducer',
  // Half V8's young generation: it grows back at rest after the idle
  // collection (the clock's allocations, no memory reducer) and while
  // streaming; at 8 MB a semi-space the scavenges stay rare enough to cost no
  // measurable CPU, where smaller ones did (docs/perf-log.md, "Memory: the
  // server's Node flags").
  '--max-semi-space-size=8',
  // A heap limit under 2 GB: V8 then grows the old space to at most twice what a collection left, not four
  // times; those swings left native memory behind in the hour's soak (docs/performance.md, "Soak").
  '--max-old-space-size=2047',
];

/** A flag of V8's own that Node does not document: one V8 release can drop it, so TAI_INTERNALS=0 leaves it out. */
const V8_ONLY_FLAGS: ReadonlySet<string> = new Set(['--no-memory-reducer']);

/** The flags a server starts with: none with TAI_SERVER_FLAGS=0 (the benchmarks' comparison), Node's documented ones alone with TAI_INTERNALS=0. */
export function serverFlags(env: NodeJS.ProcessEnv): readonly string[] {
  if (env['TAI_SERVER_FLAGS'] === '0') return [];
  return internalsOn(env) ? SERVER_NODE_FLAGS : SERVER_NODE_FLAGS.filter((flag) => !V8_ONLY_FLAGS.has(flag));
}
