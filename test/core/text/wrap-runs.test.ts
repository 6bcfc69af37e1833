import { describe, expect, it } from 'vitest';
import { WordWrap } from '../../../src/core/text/wrap.js';
import { seeded } from '../../helpers/seeded.js';
import { ReferenceWordWrap } from './wrap-reference.js';

/** Scripts, emoji sequences, controls the wrap keeps and runs of one width, as an agent might print them. */
const ATOMS = [
  'a', 'word', 'x'.repeat(30), ' ', '  ', '\t', '\n', '\r', '\r\n', '\x1b[31m', '\x1b[0m', '\x1b[1;38;5;200m',
  '\ufffd', '\ufffd'.repeat(25), '漢', '漢字'.repeat(12), 'ｶﾀｶﾅ', 'Ｆｕｌｌ', 'é', 'e\u0301', '\u0301', '\u200d', '\u00ad', 'Ω', '—',
  'क्षि', 'กิ่', 'سلام', '\u1100\u1161\u11a8', '👨‍👩‍👧‍👦', '🇫🇷', '🇫', '👍🏽', '🏽', '1️⃣', '🏳️‍🌈', '😀', '\ud83d', '\ude00', '\u200b',
];

function generated(next: (n: number) => number, atoms: number): string {
  let s = '';
  for (let k = 0; k < atoms; k++) s += ATOMS[next(ATOMS.length)];
  return s;
}

/** Every push's output, the column and whether a word is held after it, and the release: what a panel sees. */
function trace(wrap: { push(t: string): string; release(): string; readonly column: number; readonly holding: boolean }, chunks: readonly string[]): string[] {
  const out: string[] = [];
  for (const c of chunks) out.push(`${JSON.stringify(wrap.push(c))} @${wrap.column} ${wrap.holding}`);
  out.push(JSON.stringify(wrap.release()), `@${wrap.column}`);
  return out;
}

describe('the word wrap with runs of one width as one piece', () => {
  it('wraps a generated set of scripts, emoji sequences and runs exactly as the wrap of one piece a grapheme did, at any width and any cut', () => {
    const next = seeded(33);
    for (let n = 0; n < 1500; n++) {
      const text = generated(next, 1 + next(60));
      const width = 1 + next(n % 3 === 0 ? 4 : 40);
      const chunks: string[] = [];
      for (let i = 0; i < text.length; ) {
        const size = 1 + next(n % 2 === 0 ? 8 : 700);
        chunks.push(text.slice(i, i + size));
        i += size;
      }
      expect(trace(new WordWrap(width), chunks), `width ${width}: ${JSON.stringify(chunks)}`).toEqual(trace(new ReferenceWordWrap(width), chunks));
    }
  });

  it('wraps a megabyte without spaces (0xFF decoded, CJK, ASCII) into lines of the width, each cut where the old wrap cut it', () => {
    for (const unit of ['\ufffd', '漢', 'x']) {
      const text = unit.repeat(20_000);
      const chunks = Array.from({ length: 40 }, (_, k) => text.slice(k * 500, (k + 1) * 500));
      expect(trace(new WordWrap(79), chunks)).toEqual(trace(new ReferenceWordWrap(79), chunks));
    }
  });
});
