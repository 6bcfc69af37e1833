import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { until } from '../helpers/until.js';
import { COMPACT_WASTE_BYTES, exposedGc, IDLE_COLLECT_MS, IDLE_COLLECT_TRIES, idleCollector, loopBusy, quietAfter, STREAM_LOOK_MS, STREAM_WASTE_BYTES, type Growth } from '../../src/io/idle-collect.js';

/** The built module, for a fresh node with gc exposed. */
const IDLE_COLLECT_JS = fileURLToPath(new URL('../../dist/src/io/idle-collect.js', import.meta.url));

describe('the idle collector', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('collects once when the output has been quiet for IDLE_COLLECT_MS, not before', () => {
    const collect = vi.fn(() => true);
    const c = idleCollector(collect);
    c.activity();
    vi.advanceTimersByTime(IDLE_COLLECT_MS - 1);
    expect(collect).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(collect).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(10 * IDLE_COLLECT_MS);
    expect(collect).toHaveBeenCalledTimes(1);
  });

  it('waits while output keeps coming: each activity starts the quiet spell again', () => {
    const collect = vi.fn(() => true);
    const c = idleCollector(collect);
    for (let i = 0; i < 20; i++) {
      c.activity();
      vi.advanceTimersByTime(IDLE_COLLECT_MS / 2);
    }
    expect(collect).not.toHaveBeenCalled();
    vi.advanceTimersByTime(IDLE_COLLECT_MS / 2);
    expect(collect).toHaveBeenCalledTimes(1);
  });

  it('collects again after the next burst of output has gone quiet', () => {
    const collect = vi.fn(() => true);
    const c = idleCollector(collect);
    c.activity();
    vi.advanceTimersByTime(IDLE_COLLECT_MS);
    c.activity();
    vi.advanceTimersByTime(IDLE_COLLECT_MS);
    expect(collect).toHaveBeenCalledTimes(2);
  });

  it('tries again while the memory was not given back, IDLE_COLLECT_TRIES times at most', () => {
    const collect = vi.fn(() => false);
    idleCollector(collect).activity();
    vi.advanceTimersByTime(IDLE_COLLECT_MS);
    expect(collect).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(10 * IDLE_COLLECT_MS);
    expect(collect).toHaveBeenCalledTimes(IDLE_COLLECT_TRIES);
  });

  it('stops trying once a collection gave the memory back', () => {
    const collect = vi.fn().mockReturnValueOnce(false).mockReturnValue(true);
    idleCollector(collect).activity();
    vi.advanceTimersByTime(10 * IDLE_COLLECT_MS);
    expect(collect).toHaveBeenCalledTimes(2);
  });

  it('puts the collection off while keys come, as output does, and still handles each key', () => {
    const collect = vi.fn(() => true);
    const keys: string[] = [];
    const onKeys = quietAfter(idleCollector(collect), (k: string) => keys.push(k));
    for (const k of ['a', 'b', 'c']) {
      onKeys(k);
      vi.advanceTimersByTime(IDLE_COLLECT_MS - 1);
    }
    expect(keys).toEqual(['a', 'b', 'c']);
    expect(collect).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(collect).toHaveBeenCalledTimes(1);
  });

  it("reads the event loop and arms its timer once per quiet spell, not at each key (a key's activity comes before its echo)", () => {
    const collect = vi.fn(() => true);
    const looks = vi.fn(() => false);
    const onKeys = quietAfter(idleCollector(collect, IDLE_COLLECT_MS, undefined, looks), () => {});
    const armed = vi.spyOn(globalThis, 'setTimeout');
    for (let i = 0; i < 100; i++) {
      onKeys('k');
      vi.advanceTimersByTime(30);
    }
    expect(looks).toHaveBeenCalledTimes(1);
    expect(armed).toHaveBeenCalledTimes(1);
    // Still collected a whole quiet spell after the last key, not after the first.
    vi.advanceTimersByTime(IDLE_COLLECT_MS - 31);
    expect(collect).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(collect).toHaveBeenCalledTimes(1);
    armed.mockRestore();
  });

  it('puts the collection off while Ink renders, as output does', () => {
    const collect = vi.fn(() => true);
    const c = idleCollector(collect);
    c.activity();
    vi.advanceTimersByTime(IDLE_COLLECT_MS - 1);
    c.rendered();
    vi.advanceTimersByTime(IDLE_COLLECT_MS - 1);
    expect(collect).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(collect).toHaveBeenCalledTimes(1);
  });

  it('keeps the young generation from growing after a collection gave the memory back, through renders, until output comes again', () => {
    const growth = vi.fn<Growth>();
    const c = idleCollector(() => true, IDLE_COLLECT_MS, growth);
    c.activity();
    expect(growth).not.toHaveBeenCalled();
    vi.advanceTimersByTime(IDLE_COLLECT_MS);
    expect(growth.mock.calls).toEqual([[false]]);
    c.rendered();
    vi.advanceTimersByTime(IDLE_COLLECT_MS);
    expect(growth.mock.calls).toEqual([[false]]);
    c.activity();
    expect(growth.mock.calls).toEqual([[false], [true]]);
    c.activity();
    expect(growth.mock.calls).toEqual([[false], [true]]);
  });

  it('collects no more at rest for renders after a collection that gave the memory back (they echo its own figures), but again after output', () => {
    const collect = vi.fn(() => true);
    const c = idleCollector(collect);
    c.activity();
    vi.advanceTimersByTime(IDLE_COLLECT_MS);
    expect(collect).toHaveBeenCalledTimes(1);
    for (let i = 0; i < 5; i++) {
      c.rendered();
      vi.advanceTimersByTime(IDLE_COLLECT_MS);
    }
    expect(collect).toHaveBeenCalledTimes(1);
    c.activity();
    c.rendered();
    vi.advanceTimersByTime(IDLE_COLLECT_MS);
    expect(collect).toHaveBeenCalledTimes(2);
  });

  it('lets the young generation grow while a collection could not give the memory back', () => {
    const growth = vi.fn<Growth>();
    idleCollector(() => false, IDLE_COLLECT_MS, growth).activity();
    vi.advanceTimersByTime(10 * IDLE_COLLECT_MS);
    expect(growth).not.toHaveBeenCalled();
  });

  it('does not collect while the event loop stays busy with output no pacer sees, and collects once it is quiet', () => {
    const collect = vi.fn(() => true);
    let busy = true;
    const looks = vi.fn(() => busy);
    idleCollector(collect, IDLE_COLLECT_MS, undefined, looks).activity();
    // Measured from the spell's start: activity looks once (the reading discarded).
    expect(looks).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(5 * IDLE_COLLECT_MS);
    expect(collect).not.toHaveBeenCalled();
    busy = false;
    vi.advanceTimersByTime(IDLE_COLLECT_MS);
    expect(collect).toHaveBeenCalledTimes(1);
  });

  it("while output never goes quiet, compacts the old space once every STREAM_LOOK_MS when its waste reached STREAM_WASTE_BYTES since the last look, never in a key's turn", () => {
    const collect = vi.fn(() => true);
    // The waste swings with V8's own collections: high right after one, low before the next.
    let fragmented = STREAM_WASTE_BYTES;
    let reads = 0;
    const stream = { waste: vi.fn(() => (++reads % 7 === 0 ? fragmented : 1024)), collect: vi.fn() };
    const c = idleCollector(collect, IDLE_COLLECT_MS, undefined, () => false, stream);
    // Output every second for `looks` looks' time.
    const ticks = (looks: number): void => {
      for (let i = 0; i < (looks * STREAM_LOOK_MS) / 1000; i++) {
        const [collected, read] = [stream.collect.mock.calls.length, stream.waste.mock.calls.length];
        c.activity();
        expect([stream.collect.mock.calls.length, stream.waste.mock.calls.length]).toEqual([collected, read]);
        vi.advanceTimersByTime(1000);
      }
    };
    ticks(20);
    expect(stream.collect.mock.calls.length).toBeGreaterThanOrEqual(18);
    expect(stream.collect.mock.calls.length).toBeLessThanOrEqual(20);
    expect(collect).not.toHaveBeenCalled();
    // Below the margin (after the look that still saw the last high reading): read, not collected.
    fragmented = STREAM_WASTE_BYTES - 1;
    ticks(1);
    const before = stream.collect.mock.calls.length;
    ticks(5);
    expect(stream.collect).toHaveBeenCalledTimes(before);
    // Output stops: the idle collection; the next output's first look comes a whole STREAM_LOOK_MS after it starts.
    fragmented = STREAM_WASTE_BYTES;
    vi.advanceTimersByTime(IDLE_COLLECT_MS);
    expect(collect).toHaveBeenCalledTimes(1);
    ticks(0.9);
    expect(stream.collect).toHaveBeenCalledTimes(before);
    ticks(0.2);
    expect(stream.collect).toHaveBeenCalledTimes(before + 1);
  });

  it('arms no timer when gc is not exposed', () => {
    const c = idleCollector(undefined);
    c.activity();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('finds gc only when the process exposes it', () => {
    const saved = (globalThis as { gc?: unknown }).gc;
    try {
      delete (globalThis as { gc?: unknown }).gc;
      expect(exposedGc()).toBeUndefined();
      const gc = vi.fn();
      (globalThis as { gc?: unknown }).gc = gc;
      expect(typeof exposedGc()?.()).toBe('boolean');
      // Once, and once more to compact when this process's old space is fragmented (see below).
      expect(gc).toHaveBeenCalled();
    } finally {
      (globalThis as { gc?: unknown }).gc = saved;
    }
  });

  it('reads the event loop as busy while it works and as quiet while it waits', async () => {
    vi.useRealTimers();
    const busy = loopBusy();
    const end = performance.now() + 50;
    while (performance.now() < end) {
      // working, as a flood in the main pane keeps the loop
    }
    expect(busy()).toBe(true);
    // Each look measures the loop since the one before: 100 ms spent waiting.
    await until(() => !busy(), { interval: 100, what: 'the loop read as quiet' });
  });

  it('holds V8\'s new space at its collected size while growth is off and lets it grow once it is on again', () => {
    // A real heap with the server's young generation cap: objects that live a while grow the new space.
    const script = `
      const { exposedGc, youngGrowth } = await import(${JSON.stringify(IDLE_COLLECT_JS)});
      const v8 = await import('node:v8');
      const young = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
      const churn = () => { let keep = []; for (let i = 0; i < 400_000; i++) { keep.push({ i, s: 'x' + i }); if (keep.length > 20_000) keep = keep.slice(10_000); } };
      exposedGc()();
      const collected = young();
      youngGrowth(false); churn();
      const held = young();
      youngGrowth(true); churn();
      process.stdout.write(JSON.stringify({ collected, held, grown: young() }));`;
    const r = spawnSync(process.execPath, ['--expose-gc', '--v8-pool-size=1', '--max-semi-space-size=8', '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    const { collected, held, grown } = JSON.parse(r.stdout) as { collected: number; held: number; grown: number };
    expect(held).toBe(collected);
    expect(grown).toBeGreaterThan(2 * collected);
  });

  it('compacts an old space whose pages hold far more than their live objects, which a plain collection leaves', () => {
    // A real heap: 300 000 objects promoted to the old space, then 15 of 16 dropped.
    const script = `
      const { exposedCompaction, exposedGc, oldSpaceWaste } = await import(${JSON.stringify(IDLE_COLLECT_JS)});
      let keep = [];
      for (let i = 0; i < 300_000; i++) keep.push({ i, s: 'x' + i });
      gc(); gc();
      keep = keep.filter((_, i) => i % 16 === 0);
      gc();
      const plain = oldSpaceWaste();
      exposedGc()();
      const after = oldSpaceWaste();
      // Fragmented again, then the one compacting collection that streaming gets.
      for (let i = 0; i < 300_000; i++) keep.push({ i, s: 'y' + i });
      gc(); gc();
      keep = keep.filter((_, i) => i % 16 === 0);
      gc();
      const again = exposedCompaction().waste();
      exposedCompaction().collect();
      process.stdout.write(JSON.stringify({ plain, after, again, streamed: oldSpaceWaste(), kept: keep.length }));`;
    const r = spawnSync(process.execPath, ['--expose-gc', '--v8-pool-size=1', '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    const { plain, after, again, streamed, kept } = JSON.parse(r.stdout) as Record<string, number>;
    expect(kept).toBe(Math.ceil((18_750 + 300_000) / 16));
    expect(plain).toBeGreaterThan(COMPACT_WASTE_BYTES);
    expect(after).toBeLessThan(COMPACT_WASTE_BYTES);
    expect(again).toBeGreaterThan(COMPACT_WASTE_BYTES);
    expect(streamed).toBeLessThan(COMPACT_WASTE_BYTES);
  });
});
