import { describe, expect, it } from 'vitest';
import { createSanitizer } from '../../../src/core/text/sanitize.js';
import { bytesPerItem } from '../../helpers/allocated.js';

describe('the stream sanitizer on clean text', () => {
  it('hands clean chunks with line ends and tabs back as they came, copying none of them', () => {
    const chunks = Array.from({ length: 500 }, (_, i) => `reads the code then plans a small change ${i}.\n\tand runs the tests `);
    const s = createSanitizer({ carriageReturn: true });
    for (let i = 0; i < 20; i++) for (const c of chunks) expect(s.push(c)).toBe(c);
    const perChunk = bytesPerItem(20, () => chunks, (c) => s.push(c));
    // Cut at each line end and joined again, a chunk cost about 400 bytes; what is left is the scan's empty list.
    expect(perChunk).toBeLessThan(128);
  });
});
