import { afterEach, describe, expect, it, vi } from 'vitest';
import stringWidth from 'string-width';
import { graphemes, SEGMENT_SLICE, segmentGraphemes } from '../../../src/core/text/graphemes.js';
import { clip, textWidth, WordWrap } from '../../../src/core/text/wrap.js';
import { seeded } from '../../helpers/seeded.js';

/** Graphemes of many scripts and emoji sequences, each whole. */
const UNITS: readonly string[] = [
  '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466}', // family (ZWJ)
  '\u{1F3F3}\uFE0F\u200D\u{1F308}', // rainbow flag (ZWJ + VS16)
  '\u{1F1EF}\u{1F1F5}', // flag (regional indicators)
  '\u{1F44D}\u{1F3FD}', // skin tone
  'e\u0301\u0323', // combining marks
  '\u4E2D', '\u6587', '\uAC00', // CJK, Hangul
  '\u1100\u1161\u11A8', // Hangul jamo
  '\u0E01\u0E33', '\u0E40', // Thai
  '\u05E9\u05B8', '\u0627', '\u0644', // Hebrew with a point, Arabic (RTL)
  '\u0915\u094D\u0937', // Devanagari conjunct
  '\uFFFD', // replacement (a 0xFF byte decoded)
  '\u00E9', 'x',
];

/** A run without spaces built from `count` units picked by `next`. */
function run(next: (n: number) => number, count: number): string {
  let s = '';
  for (let k = 0; k < count; k++) s += UNITS[next(UNITS.length)];
  return s;
}

/** Records the length of every string handed to Intl.Segmenter. */
function spySegmenter(): number[] {
  const lengths: number[] = [];
  const original = Intl.Segmenter.prototype.segment;
  vi.spyOn(Intl.Segmenter.prototype, 'segment').mockImplementation(function (this: Intl.Segmenter, input: string) {
    lengths.push(input.length);
    return original.call(this, input);
  });
  return lengths;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('segmentGraphemes', () => {
  it('gives the same graphemes as one Intl.Segmenter pass, for generated runs of every script', () => {
    const next = seeded(33);
    const whole = new Intl.Segmenter();
    for (let round = 0; round < 40; round++) {
      const text = run(next, 50 + next(400));
      const expected = [...whole.segment(text)].map((s) => s.segment);
      expect(graphemes(text)).toEqual(expected);
      const rebuilt = [...segmentGraphemes(text)].map((g) => text.slice(g.index, g.index + g.segment.length));
      expect(rebuilt).toEqual(expected);
    }
  });

  it('never hands Intl.Segmenter more than a slice, however long the run', () => {
    const lengths = spySegmenter();
    const bytes = Buffer.alloc(100_000, 0xff).toString('utf8');
    expect(graphemes(bytes)).toHaveLength(100_000);
    expect(textWidth(run(seeded(1), 20_000))).toBeGreaterThan(0);
    expect(Math.max(...lengths)).toBeLessThanOrEqual(SEGMENT_SLICE);
    // Linear work: the units segmented stay within a small multiple of the text.
    const total = lengths.reduce((a, b) => a + b, 0);
    expect(total).toBeLessThan(3 * 100_000 + 3 * 20_000 * 12);
  });

  it('cuts a single grapheme longer than a slice at a code point, and loses nothing', () => {
    const text = 'a' + '\u0301'.repeat(3 * SEGMENT_SLICE) + '\u{1F600}'.repeat(300);
    const out = [...segmentGraphemes(text)];
    expect(out.map((g) => g.segment).join('')).toBe(text);
    for (const g of out) {
      expect(g.segment.length).toBeLessThanOrEqual(SEGMENT_SLICE);
      expect(text.slice(g.index, g.index + g.segment.length)).toBe(g.segment);
      expect(/^[\uDC00-\uDFFF]/.test(g.segment)).toBe(false);
    }
  });
});

describe('WordWrap on long runs without spaces', () => {
  it('wraps generated runs of every script, streamed in chunks of any size, to lines within the width, whole graphemes, nothing lost', () => {
    const next = seeded(7);
    for (const width of [1, 2, 7, 40, 199]) {
      const lengths = spySegmenter();
      const text = run(next, 3000);
      const wrap = new WordWrap(width);
      // Streamed in chunks of any size, as an agent's output arrives (never inside a surrogate pair).
      let out = '';
      for (let at = 0; at < text.length; ) {
        let end = Math.min(text.length, at + 1 + next(width % 2 === 0 ? 700 : 20));
        if (end < text.length && /[\uD800-\uDBFF]/.test(text[end - 1] ?? '')) end++;
        out += wrap.push(text.slice(at, end));
        at = end;
      }
      out += wrap.release();
      expect(Math.max(...lengths)).toBeLessThanOrEqual(SEGMENT_SLICE);
      vi.restoreAllMocks();
      const lines = out.split('\r\n');
      for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(Math.max(width, 2));
      expect(lines.join('')).toBe(text);
      // No line boundary falls inside a grapheme.
      const cuts = new Set<number>();
      let at = 0;
      for (const line of lines.slice(0, -1)) cuts.add((at += line.length));
      for (const { index, segment } of new Intl.Segmenter().segment(text)) {
        for (let k = index + 1; k < index + segment.length; k++) expect(cuts.has(k)).toBe(false);
      }
    }
  });

  it('measures and clips a 100k run of U+FFFD through bounded slices', () => {
    const lengths = spySegmenter();
    const text = '\uFFFD'.repeat(100_000) + '\u{1F468}\u200D\u{1F469}';
    expect(textWidth(text)).toBe(100_002);
    expect(clip(text, 10)).toBe('\uFFFD'.repeat(9) + '…');
    const wrap = new WordWrap(80);
    expect((wrap.push(text) + wrap.release()).split('\r\n')).toHaveLength(Math.ceil(100_002 / 80));
    expect(Math.max(...lengths)).toBeLessThanOrEqual(SEGMENT_SLICE);
  });
});
