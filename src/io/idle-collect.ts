/**
 * One full collection once output and keys have been quiet IDLE_COLLECT_MS: V8 never gives back the young
 * generation streaming grew while the process rests, and shrinks it only after low allocation, hence the wait and
 * retries; a second, compacting one when old-space pages waste COMPACT_WASTE_BYTES. Needs `--expose-gc`. Figures:
 * docs/perf-log.md, "Memory: the server's Node flags and the idle collection".
 */
import v8 from 'node:v8';
import { performance } from 'node:perf_hooks';
import { setV8Flag } from './node-internals.js';

/** How long the agents' output must have been quiet before the collection. */
export const IDLE_COLLECT_MS = 10_000;

/** Collections per quiet spell at most, while the new space stays large. */
export const IDLE_COLLECT_TRIES = 3;

/** A new space at most this large (bytes, both semi-spaces) has been given back. */
const SHRUNK_BYTES = 4 * 1024 * 1024;

/** Old-space pages holding this much more than their live objects (bytes) are compacted. */
export const COMPACT_WASTE_BYTES = 2 * 1024 * 1024;

/** While output never goes quiet, how often the old space is looked at (ms): V8 keeps its fragmented pages, a little more each hour (docs/performance.md, "Soak"). */
export const STREAM_LOOK_MS = 10 * 60_000;

/** Old-space pages seen holding this much more than their objects (bytes) since the last look get one compacting collection. */
export const STREAM_WASTE_BYTES = 8 * 1024 * 1024;

/** The collection while streaming: the old space's waste (bytes) and one compacting full collection. */
export interface StreamCollect {
  readonly waste: () => number;
  readonly collect: () => void;
}

/** Collects when the output has been quiet long enough; one per quiet spell. */
export interface IdleCollector {
  /** Output was read or a key typed: the quiet spell starts again from now, and the young generation may grow again. */
  activity(): void;
  /** Ink rendered the chrome: the quiet spell starts again, unless the last one ended in a collection that gave the memory back. */
  rendered(): void;
}

/** A collection: true when the memory was given back, false to try again later. */
export type Collect = () => boolean;

/** Whether the event loop was busy since the last call (a flood in the main pane, which is not paced output). */
export type Busy = () => boolean;

/** The share of the time the event loop may have worked for the process to count as quiet. */
export const BUSY_SHARE = 0.1;

/** The event loop's utilization since the last call (Node's public perf_hooks) above BUSY_SHARE. */
export function loopBusy(): Busy {
  let last = performance.eventLoopUtilization();
  return () => {
    const now = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(now, last).utilization > BUSY_SHARE;
    last = now;
    return busy;
  };
}

/** Lets V8's young generation grow (true) or keeps it at the size it has (false). */
export type Growth = (grow: boolean) => void;

/**
 * V8's young generation growth by its flag (setV8Flag; none with internals off): 1 keeps the new space as the
 * last collection left it, V8's default 2 lets streaming grow it; read at each growth, so it acts at once.
 */
export const youngGrowth: Growth = (grow) => void setV8Flag(`--semi-space-growth-factor=${grow ? 2 : 1}`);

/** The full collection V8 offers when the process runs with `--expose-gc`, else undefined. */
export function exposedGc(): Collect | undefined {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) return undefined;
  return () => {
    // gc() is a full, synchronous collection; on Node 20, gc({ type: 'major' }) ran a scavenge.
    gc();
    if (oldSpaceWaste() >= COMPACT_WASTE_BYTES) compacting(gc);
    const young = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    return young === undefined || young.space_size <= SHRUNK_BYTES;
  };
}

/** One compacting full collection, when the process runs with `--expose-gc`, else undefined. */
export function exposedCompaction(): StreamCollect | undefined {
  const gc = (globalThis as { gc?: () => void }).gc;
  return gc === undefined ? undefined : { waste: oldSpaceWaste, collect: () => compacting(gc) };
}

/** Bytes of old-space pages that hold no live object (committed less used). */
export function oldSpaceWaste(): number {
  const old = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space');
  return old === undefined ? 0 : old.space_size - old.space_used_size;
}

/**
 * One full collection compacting every old-space page; V8 reads the flag at each collection (Node leaves its
 * flags unfrozen for v8.setFlagsFromString).
 */
function compacting(gc: () => void): void {
  // With internals off, a plain full collection (V8 compacts the pages it picks).
  if (!setV8Flag('--compact-on-every-full-gc')) return gc();
  try {
    gc();
  } finally {
    setV8Flag('--no-compact-on-every-full-gc');
  }
}

/**
 * Calls `collect` once `quietMs` passed without `activity` (up to IDLE_COLLECT_TRIES, then not until activity).
 * Activity only notes the time, as it comes with every key: the unref'd timer moves on when it fires early.
 * While output never goes quiet, that timer collects `stream`'s waste (docs/performance.md, "Optimisations that stay").
 */
export function idleCollector(collect: Collect | undefined, quietMs = IDLE_COLLECT_MS, growth?: Growth, busy: Busy = () => false, stream?: StreamCollect): IdleCollector {
  if (collect === undefined) return { activity: () => undefined, rendered: () => undefined };
  let timer: NodeJS.Timeout | undefined;
  let tries = 0;
  let held = false;
  /** When the last activity came (Date.now). */
  let last = 0;
  /** When the old space was last looked at while streaming (Date.now); 0: not in this spell of output. */
  let looked = 0;
  /** The most waste seen since that look: right after one of V8's collections it is the pages' fragmentation. */
  let most = 0;
  const lookWhileStreaming = (now: number): void => {
    if (stream === undefined) return;
    most = Math.max(most, stream.waste());
    if (looked === 0) looked = now;
    if (now - looked < STREAM_LOOK_MS) return;
    looked = now;
    if (most >= STREAM_WASTE_BYTES) stream.collect();
    most = 0;
  };
  const arm = (ms = quietMs): void => {
    timer = setTimeout(fire, ms);
    timer.unref();
  };
  const fire = (): void => {
    timer = undefined;
    const now = Date.now();
    const quietFor = now - last;
    if (quietFor < quietMs) {
      lookWhileStreaming(now);
      busy(); // the rest of the spell is what is measured
      return arm(quietMs - quietFor);
    }
    looked = 0;
    most = 0;
    // Output no pacer sees (the main pane's) keeps the loop busy: not a quiet spell, look again later.
    if (busy()) return arm();
    tries++;
    if (collect()) {
      // At rest the renders' garbage would grow the new space back to its streaming size.
      if (!held && growth) growth(false);
      held = true;
    } else if (tries < IDLE_COLLECT_TRIES) arm();
  };
  const quiet = (): void => {
    last = Date.now();
    tries = 0;
    if (timer) return;
    busy(); // the spell is measured from its start
    arm();
  };
  return {
    activity() {
      if (held && growth) growth(true);
      held = false;
      quiet();
    },
    rendered() {
      // A render after the collection is mostly its own echo (the status line's figures moved): collecting again would echo again.
      if (!held) quiet();
    },
  };
}

/**
 * `handle` that first tells `collector` of each call: input that puts the
 * collection off as output does (the keys: the user is not paused mid-typing).
 */
export function quietAfter<T>(collector: IdleCollector, handle: (input: T) => void): (input: T) => void {
  return (input) => {
    // After the input is handled: a key reaches the main pane's pty first.
    try {
      handle(input);
    } finally {
      collector.activity();
    }
  };
}

/**
 * The process's collector, started by the cockpit (its start-up's quiet spell grows the new space too) and told
 * of each pacer tick and key (activity) and each render of the chrome (rendered).
 */
export const idleCollection: IdleCollector = idleCollector(exposedGc(), IDLE_COLLECT_MS, youngGrowth, loopBusy(), exposedCompaction());
