/**
 * The Node flags the cockpit's server process is started with (issue 11:
 * the cockpit with 8 panels at most 80 MB RSS, with its streaming CPU no
 * higher than without them). tai spawns the server itself with
 * `process.execPath`, so it chooses them; each was measured on Node 20.20
 * (`npm run bench -- cockpit`, which runs tai with and without them beside
 * tmux: docs/perf-log.md, "Memory"). Node 20.20, 22.23 and 24.22 all
 * start with every one of them (an unknown flag makes node refuse to start:
 * "bad option"; test/io/cockpit/server-flags.test.ts checks the Node that
 * runs the tests).
 *
 * Measured and left out (2 shared cores, 8 agents x 500 tok/s, 8 silent panels):
 * - `--max-semi-space-size=1|2|4` or `--semi-space-growth-factor=1`: idle RSS
 *   87-91 MB, but streaming CPU up by a quarter (scavenges 4 to 16 times as
 *   often, and more garbage promoted: old space swung up to 86 MB);
 * - `--optimize-for-size`: idle 81-88 MB, streaming CPU up by two thirds;
 * - `--single-threaded`: V8's collections no longer shrink the new space
 *   (a full collection left it at 32 MB);
 * - `--single-threaded-gc`, `--liftoff-only`, `--no-wasm-tier-up`: no RSS
 *   gain measured (yoga's WebAssembly is compiled lazily already);
 * - `--min-semi-space-size=2|4`: the new space at rest stays larger, and renders
 *   at rest fill it (docs/performance.md, "Tried and left out");
 * - `--max-old-space-size=48|64`: 0-4 MB less, and a crash (not a slower
 *   cockpit) if the records ever outgrow it;
 * - `--no-sparkplug`, `--flush-baseline-code`, `--bytecode-old-age=1`,
 *   `--max-lazy`: 0-3 MB, within the noise;
 * - `--lite-mode` and `--jitless`: yoga-layout's WebAssembly fails to load;
 * - `--max-inlined-bytecode-size-cumulative=300` (a smaller inlining budget):
 *   no streaming CPU gain in the bench beside tmux;
 * - `--maglev` (Node 20's V8 has it, off and experimental; on by default from
 *   Node 22): first streaming window 1.06 s and the next 0.77 s against
 *   1.10 and 0.91 without (6 runs), left to the Nodes that ship it on;
 *   `--interrupt-budget` 4x larger, `--no-lazy-feedback-allocation`: within
 *   the noise; 2x or 4x smaller: a lower first window only by compiling in
 *   the seconds before it (0-43 s in all: 2.11 -> 2.15-2.23 s).
 */

/** The flags, in the order they go before the script on the server's command line. */
export const SERVER_NODE_FLAGS: readonly string[] = [
  // Exposes gc() so that the idle collector (src/io/idle-collect.ts) runs one
  // full collection 10 s after the agents' output (or the start-up) goes
  // quiet: V8 then shrinks the young generation it grew to 2 x 16 MB while
  // streaming and never gives back at rest. With both flags, in one bench
  // run: 8 silent panels 116 -> 85 MB, no agents 109 -> 83 MB. No cost while
  // streaming (nothing runs until the output stops); 8-25 ms once per quiet spell.
  // That collection also compacts a fragmented old space (V8's
  // --compact-on-every-full-gc for it alone, not as a flag here, which would
  // compact at every full collection while streaming too): 81-84 -> 77-78 MB.
  '--expose-gc',
  // One V8 worker thread instead of one per core (background compilation,
  // concurrent marking and sweeping): fewer threads, fewer malloc arenas.
  // 8 silent panels, after the idle collection: about 94 -> 86 MB; streaming
  // CPU unchanged within the noise (the work is the same, on fewer threads).
  '--v8-pool-size=1',
  // No memory reducer: its incremental collections, started by ours, came
  // 13-30 s after it and cost 0.3-0.6 % of a core in the idle bench's window
  // (--trace-gc: two "Mark-Compact (reduce)", ~90 ms) for no RSS (it does not
  // shrink the new space; the idle collection does). Idle bench: 0.29 / 0.56 %
  // -> 0.005 / 0.17 % (tai without flags 0.006 / 0.14), RSS 80.2 / 82.9 MB;
  // streaming CPU unchanged (the reducer acts only when allocation is low).
  '--no-memory-reducer',
  // Half V8's young generation: it grows back at rest after the idle
  // collection (the clock's allocations, no memory reducer) and while
  // streaming; at 8 MB a semi-space the scavenges stay rare enough to cost no
  // measurable CPU, where 1-4 MB did (above).
  '--max-semi-space-size=8',
];
