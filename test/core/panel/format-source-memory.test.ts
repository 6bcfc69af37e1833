/**
 * What a panel's formatter keeps of a token stream (src/core/panel/format-source.ts)
 * costs about the text itself, not a string and a link per token: V8 moves
 * what a panel keeps for its life to the old space, where only a full
 * collection frees it. Counted in bytes of the heap after a full collection,
 * with a margin far wider than the noise.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { FormatSource, SOURCE_UNITS_MAX } from '../../../src/core/panel/format-source.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const PANELS = 8;

describe("a panel's kept stream", () => {
  it('holds less than 3 bytes a unit for a stream of 6-unit tokens, 8 panels of nearly 64 Ki units each', () => {
    gc();
    const before = process.memoryUsage().heapUsed;
    const sources = Array.from({ length: PANELS }, () => new FormatSource());
    let units = 0;
    let n = 0;
    while (units < SOURCE_UNITS_MAX - 64) {
      for (const source of sources) {
        // A unique token each time, as an agent's stream is.
        const text = `w${(n++).toString(36).padStart(4, '0')} `;
        source.add({ type: 'stream', thought: false, text });
      }
      units += 6;
    }
    gc();
    const held = process.memoryUsage().heapUsed - before;
    for (const source of sources) expect(source.units).toBe(units);
    expect(sources[0]?.calls).toHaveLength(1);
    expect(held / (units * PANELS)).toBeLessThan(3);
  });
});
