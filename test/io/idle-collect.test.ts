import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { exposedGc, IDLE_COLLECT_MS, IDLE_COLLECT_TRIES, idleCollector } from '../../src/io/idle-collect.js';

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
      expect(gc).toHaveBeenCalledTimes(1);
    } finally {
      (globalThis as { gc?: unknown }).gc = saved;
    }
  });
});
