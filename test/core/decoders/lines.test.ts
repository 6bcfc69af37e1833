import { describe, expect, it } from 'vitest';
import { LineDecoder } from '../../../src/core/decoders/lines.js';

describe('the line decoder', () => {
  it('joins lines split across chunks, strips CR and keeps split UTF-8 characters whole', () => {
    const d = new LineDecoder();
    const bytes = Buffer.from('a€b\r\nsecond');
    expect(d.push(bytes.subarray(0, 2)).lines).toEqual([]);
    expect(d.push(bytes.subarray(2, 8)).lines).toEqual(['a€b']);
    expect(d.push(bytes.subarray(8)).lines).toEqual([]);
    expect(d.end().lines).toEqual(['second']);
  });

  it('skips a line over its cap without buffering it, and counts it', () => {
    const d = new LineDecoder(10);
    expect(d.push('x'.repeat(8))).toEqual({ lines: [], overflow: 0 });
    expect(d.push('x'.repeat(8))).toEqual({ lines: [], overflow: 16 });
    expect(d.push('y'.repeat(1000))).toEqual({ lines: [], overflow: 1000 });
    expect(d.push('z\nok\n')).toEqual({ lines: ['ok'], overflow: 1 });
  });
});
