import v8 from 'node:v8';
import { describe, expect, it } from 'vitest';
import { createSanitizer } from '../../../src/core/text/sanitize.js';

/** Bytes the young generation took while `run` ran; undefined when a collection ran meanwhile (the count is then lost). */
function allocated(run: () => void): number | undefined {
  const used = (): number => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_used_size ?? 0;
  const before = used();
  run();
  const after = used();
  return after > before ? after - before : undefined;
}

describe('the stream sanitizer on clean text', () => {
  it('hands clean chunks with line ends and tabs back as they came, copying none of them', () => {
    const chunks = Array.from({ length: 500 }, (_, i) => `reads the code then plans a small change ${i}.\n\tand runs the tests `);
    const s = createSanitizer({ carriageReturn: true });
    for (let i = 0; i < 20; i++) for (const c of chunks) expect(s.push(c)).toBe(c);
    const perChunk: number[] = [];
    for (let round = 0; round < 20; round++) {
      const bytes = allocated(() => {
        for (const c of chunks) s.push(c);
      });
      if (bytes !== undefined) perChunk.push(bytes / chunks.length);
    }
    perChunk.sort((a, b) => a - b);
    expect(perChunk.length).toBeGreaterThan(5);
    // Cut at each line end and joined again, a chunk cost about 400 bytes; what is left is the scan's empty list.
    expect(perChunk[perChunk.length >> 1]).toBeLessThan(128);
  });
});
