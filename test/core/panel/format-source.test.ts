import { describe, expect, it } from 'vitest';
import { FormatSource, SOURCE_PART_UNITS, SOURCE_UNITS_MAX, type SourceCall } from '../../../src/core/panel/format-source.js';
import { ReferenceSource } from './format-source-reference.js';

/** A small deterministic generator (the same cases every run). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const WORDS = ['the', 'agent', 'reads', 'code', '\n', '\n\n', 'é', '😀', 'x'.repeat(300), '\r\n', '漢字', '\ud83d', '\ude00'];

/** A token stream with the odd event, thought and long line, as agents send it. */
function calls(seed: number, count: number): SourceCall[] {
  const next = random(seed);
  const out: SourceCall[] = [];
  for (let i = 0; i < count; i++) {
    const r = next();
    if (r < 0.01) out.push({ type: 'event', event: { type: 'note', text: `note ${i}` } });
    else if (r < 0.02) out.push({ type: 'stream', thought: true, text: `thinking ${i} ` });
    else {
      let text = '';
      for (let n = 1 + Math.floor(next() * 4); n > 0; n--) text += WORDS[Math.floor(next() * WORDS.length)] + (next() < 0.7 ? ' ' : '');
      out.push({ type: 'stream', thought: false, text });
    }
  }
  return out;
}

describe('the format source', () => {
  it('keeps exactly what it kept when its stream text was one string, through many trims', () => {
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const parted = new FormatSource();
      const reference = new ReferenceSource();
      for (const call of calls(seed, 40_000)) {
        parted.add(call);
        reference.add(call);
      }
      expect(parted.units).toBe(reference.units);
      expect(parted.calls).toEqual(reference.calls);
    }
  });

  it('trims a token stream reading only the part it cuts, not the whole text kept', () => {
    const source = new FormatSource();
    const line = `${'word '.repeat(15)}\n`;
    let added = 0;
    while (added < 1_000_000) {
      for (const token of line.match(/.{1,5}/gs) ?? []) source.addStream(false, token);
      added += line.length;
    }
    const trims = Math.floor(added / (SOURCE_UNITS_MAX / 4));
    // One string of the whole stream is read whole (flattened) at each trim: 64 Ki units a trim.
    expect(source.scanned).toBeGreaterThan(0);
    expect(source.scanned).toBeLessThanOrEqual(trims * (SOURCE_PART_UNITS + line.length));
    expect(source.units).toBeLessThanOrEqual(SOURCE_UNITS_MAX);
  });
});
