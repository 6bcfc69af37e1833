/**
 * The Node flags the cockpit's server process is started with: a cockpit of
 * 8 panels within its memory goal, with no more streaming CPU than without
 * them (docs/performance.md, "Optimisations that stay"). tai spawns the
 * server itself with `process.execPath`, so it chooses them; each was
 * measured beside tmux (`npm run bench -- cockpit` runs tai with and without
 * them: docs/perf-log.md, "Memory: the server's Node flags"). Node 20.20,
 * 22.23 and 24.22 all start with every one of them (an unknown flag makes
 * node refuse to start: "bad option"; test/io/cockpit/server-flags.test.ts
 * checks the Node that runs the tests).
 *
 * Flags measured and left out, each with why, so none is tried again blind:
 * docs/perf-log.md, "Figures taken out of code comments" (and
 * docs/performance.md, "Tried and left out").
 */
import { internalsOn } from '../node-internals.js';

/** The flags, in the order they go before the script on the server's command line. */
export const SERVER_NODE_FLAGS: readonly string[] = [
  // Exposes gc() so that the idle collector (src/io/idle-collect.ts) runs one
  // full collection once the agents' output (or the start-up) goes quiet: V8
  // then shrinks the young generation it grew while streaming and never gives
  // back at rest. That collection also compacts a fragmented old space (V8's
  // --compact-on-every-full-gc for it alone: as a flag here it would compact
  // at every full collection while streaming too).
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
