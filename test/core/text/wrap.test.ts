import { describe, expect, it } from 'vitest';
import stringWidth from 'string-width';
import { clip, textWidth, WordWrap } from '../../../src/core/text/wrap.js';
import { seeded } from '../../helpers/seeded.js';

/** Pushes every chunk, releases, and returns the output. */
function wrapAll(width: number, chunks: readonly string[]): string {
  const w = new WordWrap(width);
  return chunks.map((c) => w.push(c)).join('') + w.release();
}

const TEXT =
  'The quick brown fox jumps over the lazy dog while the orchestrator streams tokens into a narrow pane, ' +
  'and every word must arrive whole.';

describe('WordWrap', () => {
  it('passes a line that fits and holds back a trailing gap', () => {
    const w = new WordWrap(20);
    expect(w.push('hello world ')).toBe('hello world');
    expect(w.column).toBe(11);
    expect(w.holding).toBe(false);
  });

  it('holds the last word of a chunk until a space arrives or release() is called', () => {
    const w = new WordWrap(20);
    expect(w.push('hello wor')).toBe('hello');
    expect(w.holding).toBe(true);
    expect(w.push('ld and')).toBe(' world');
    expect(w.release()).toBe(' and');
    expect(w.holding).toBe(false);
    expect(w.column).toBe(15);
  });

  it('moves a word that does not fit to the next line and drops the spaces at the wrap', () => {
    expect(wrapAll(10, ['hello   world '])).toBe('hello\r\nworld');
  });

  it('ends lines with CRLF on newline', () => {
    expect(wrapAll(20, ['a\nb\n\nc'])).toBe('a\r\nb\r\n\r\nc');
  });

  it('never breaks inside a word and rejoins words split across chunks', () => {
    const whole = wrapAll(16, [TEXT]);
    const lines = whole.split('\r\n');
    expect(lines).toEqual([
      'The quick brown',
      'fox jumps over',
      'the lazy dog',
      'while the',
      'orchestrator',
      'streams tokens',
      'into a narrow',
      'pane, and every',
      'word must arrive',
      'whole.',
    ]);
    // Tokens of 1 to 4 characters, cut anywhere, give the same lines.
    const tokens: string[] = [];
    for (let i = 0, k = 0; i < TEXT.length; k++) {
      const n = 1 + (k % 4);
      tokens.push(TEXT.slice(i, i + n));
      i += n;
    }
    expect(wrapAll(16, tokens)).toBe(whole);
  });

  it('breaks a word longer than a line, starting it on a fresh line', () => {
    expect(wrapAll(5, ['abcdefghijkl '])).toBe('abcde\r\nfghij\r\nkl');
    expect(wrapAll(5, ['ab abcdefghijkl x'])).toBe('ab\r\nabcde\r\nfghij\r\nkl x');
  });

  it('emits the full lines of a long word as it streams and holds at most one line', () => {
    const w = new WordWrap(4);
    expect(w.push('abcdefghij')).toBe('abcd\r\nefgh\r\n');
    expect(w.holding).toBe(true);
    expect(w.release()).toBe('ij');
    const v = new WordWrap(10);
    let out = '';
    for (let i = 0; i < 10_000; i++) out += v.push('x');
    expect(out.length).toBe(999 * 12);
    expect(v.release()).toBe('x'.repeat(10));
  });

  it('counts multi-byte characters as one column', () => {
    expect(wrapAll(10, ['café naïve ok'])).toBe('café naïve\r\nok');
  });

  it('counts wide characters as two columns and moves one that would straddle the edge', () => {
    expect(wrapAll(5, ['漢字漢 '])).toBe('漢字\r\n漢');
    expect(wrapAll(4, ['a漢字'])).toBe('a漢\r\n字');
    expect(wrapAll(7, ['ab 😀😀 c'])).toBe('ab 😀😀\r\nc');
  });

  it('rejoins a combining mark and an emoji sequence split across chunks', () => {
    const w = new WordWrap(10);
    expect(w.push('cafe') + w.push('\u0301 ')).toBe('cafe\u0301');
    expect(w.column).toBe(4);
    const v = new WordWrap(10);
    expect(v.push('👨\u200d') + v.push('👩 ')).toBe('👨\u200d👩');
    expect(v.column).toBe(2);
  });

  it('counts SGR sequences as zero width', () => {
    const w = new WordWrap(5);
    expect(w.push('\x1b[31mhello\x1b[0m world ')).toBe('\x1b[31mhello\x1b[0m\r\nworld');
    expect(w.column).toBe(5);
    expect(wrapAll(5, ['ab \x1b[1mcd\x1b[0m'])).toBe('ab \x1b[1mcd\x1b[0m');
  });

  it('expands tabs to the next multiple of eight', () => {
    expect(wrapAll(20, ['a\tb'])).toBe('a       b');
    expect(wrapAll(20, ['abcdefgh\tx'])).toBe('abcdefgh        x');
    expect(wrapAll(12, ['abcdefgh\txyz'])).toBe('abcdefgh\r\nxyz');
  });

  it('starts a fresh line only when something is on the current one', () => {
    const w = new WordWrap(20);
    expect(w.newline()).toBe('');
    w.push('hi ');
    expect(w.newline()).toBe('\r\n');
    expect(w.column).toBe(0);
    expect(w.push('x')).toBe('');
    expect(w.release()).toBe('x');
  });

  it('wraps at the new width after setWidth', () => {
    const w = new WordWrap(20);
    w.setWidth(6);
    expect(w.push('abc defg ')).toBe('abc\r\ndefg');
  });

  it('never emits a line wider than the width', () => {
    const text = 'Ein Fluß voller 漢字 und 😀 emoji, plus averyveryverylongwordthatneedsbreaking and\tkeine Sorgen. ';
    for (let width = 3; width <= 30; width++) {
      for (const line of wrapAll(width, [...text]).split('\r\n')) {
        expect(stringWidth(line)).toBeLessThanOrEqual(width);
      }
    }
  });
});

describe('clip', () => {
  it('returns text that fits unchanged', () => {
    expect(clip('hello', 5)).toBe('hello');
  });

  it('ends a clipped text with an ellipsis inside the width', () => {
    expect(clip('hello world', 8)).toBe('hello w…');
    expect(clip('hello world', 7)).toBe('hello…');
    expect(clip('abcdef', 4)).toBe('abc…');
  });

  it('counts wide characters by display width and never splits them', () => {
    expect(clip('漢字漢字', 5)).toBe('漢字…');
    expect(clip('漢字漢字', 4)).toBe('漢…');
    expect(clip('😀😀😀', 3)).toBe('😀…');
  });

  it('clips to a number of characters as well as columns', () => {
    expect(clip('abcdef', 100, 4)).toBe('abc…');
    expect(clip('e\u0301e\u0301e\u0301', 100, 2)).toBe('e\u0301…');
  });

  it('returns nothing when there is no room', () => {
    expect(clip('abc', 0)).toBe('');
    expect(clip('abc', 1)).toBe('…');
  });

  it('keeps within both limits, and returns the text itself exactly when it fits them', () => {
    const alphabet = ['a', ' ', '·', '●', 'é', 'e\u0301', '漢', '😀', '👩‍💻', '\u200b'];
    const next = seeded(5);
    for (let n = 0; n < 2000; n++) {
      const text = Array.from({ length: next(10) }, () => alphabet[next(alphabet.length)]).join('');
      const cols = 1 + next(24);
      const chars = next(2) === 0 ? Number.POSITIVE_INFINITY : 1 + next(12);
      const out = clip(text, cols, chars);
      const fits = stringWidth(text) <= cols && [...new Intl.Segmenter().segment(text)].length <= chars;
      if (fits) expect(out).toBe(text);
      else {
        expect(out.endsWith('…')).toBe(true);
        expect(stringWidth(out)).toBeLessThanOrEqual(cols);
        expect([...new Intl.Segmenter().segment(out)].length).toBeLessThanOrEqual(chars);
      }
    }
  });
});

describe('textWidth', () => {
  it('measures as string-width does, on the fast path and through the segmenter', () => {
    const alphabet = ['a', 'Z', ' ', '·', '●', '✓', 'é', 'e\u0301', '漢', '😀', '👩‍💻', '⏱', '\u200b', '№', 'ß', '─'];
    const next = seeded(7);
    for (let n = 0; n < 500; n++) {
      const text = Array.from({ length: next(24) }, () => alphabet[next(alphabet.length)]).join('');
      expect(textWidth(text), JSON.stringify(text)).toBe(stringWidth(text));
    }
    expect(textWidth(' ● build · running · 12s · 3 tools · 1.5k tok')).toBe(45);
  });
});
