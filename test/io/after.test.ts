/**
 * `after` (src/io/after.ts): a due timer runs in the loop turn of the I/O that made it due, before any timer, so a
 * flush and a frame cost no second wake-up (docs/performance.md, "Optimisations that stay").
 */
import { readFile } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { after } from '../../src/io/after.js';

/** Runs `body` inside an I/O callback (a file read's), as a pacer tick or a pty read runs. */
function fromIo(body: (order: string[]) => void): Promise<string[]> {
  return new Promise((resolve) => {
    readFile(new URL(import.meta.url), () => {
      const order: string[] = [];
      body(order);
      setTimeout(() => setTimeout(() => resolve(order), 0), 0);
    });
  });
}

describe('after', () => {
  it('runs a due one in the same turn as the I/O, before a timer set earlier', async () => {
    const order = await fromIo((seen) => {
      setTimeout(() => seen.push('timer'), 0);
      after(0, () => seen.push('due'));
    });
    // With a timer of 0 ms instead, the timer set first would run first.
    expect(order).toEqual(['due', 'timer']);
  });

  it('runs a negative delay at once too, and a cancelled one never', async () => {
    const order = await fromIo((seen) => {
      after(-5, () => seen.push('late'));
      const cancel = after(0, () => seen.push('cancelled'));
      cancel();
    });
    expect(order).toEqual(['late']);
  });

  it('keeps a positive delay on a timer, cancellable, and unref-able', () => {
    vi.useFakeTimers();
    try {
      const fired: number[] = [];
      after(50, () => fired.push(50));
      const cancel = after(80, () => fired.push(80), true);
      vi.advanceTimersByTime(49);
      expect(fired).toEqual([]);
      vi.advanceTimersByTime(1);
      expect(fired).toEqual([50]);
      cancel();
      vi.advanceTimersByTime(100);
      expect(fired).toEqual([50]);
    } finally {
      vi.useRealTimers();
    }
  });
});
