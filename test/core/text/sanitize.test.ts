import { describe, expect, it } from 'vitest';
import {
  createSanitizer,
  sanitize,
  sanitizeLine,
  SANITIZE_SEQUENCE_MAX,
  stripSgr,
} from '../../../src/core/text/sanitize.js';
import { seeded } from '../../helpers/seeded.js';

/** Feeds the chunks one by one and returns everything the sanitizer emitted, end() included. */
function feed(chunks: ReadonlyArray<string | Uint8Array>): string {
  const s = createSanitizer();
  return chunks.map((c) => s.push(c)).join('') + s.end();
}

const HOSTILE =
  'a\x1b[2Ab\x1b[10;5Hc\x1b]0;evil\x07d\x1b[?1049he\x1b[1;31mf\x1b[0m\x1bPq#0\x1b\\g\x9b2Jh\x9d0;t\x9ci\x1b7j\rk\x08l';

describe('sanitize', () => {
  it('keeps plain text, newlines and tabs', () => {
    expect(sanitize('hello\n\tworld ünïcödé 漢字 😀')).toBe('hello\n\tworld ünïcödé 漢字 😀');
  });

  it('keeps SGR sequences, including colon parameters and the bare reset', () => {
    expect(sanitize('\x1b[1;31mred\x1b[0m \x1b[38:2:255:0:0mtrue\x1b[m')).toBe(
      '\x1b[1;31mred\x1b[0m \x1b[38:2:255:0:0mtrue\x1b[m',
    );
  });

  it('removes cursor moves and erases', () => {
    expect(sanitize('a\x1b[2Ab\x1b[10;5Hc\x1b[Kd\x1b[2Je\x1b[3Gf\x1b[sg\x1b[uh')).toBe('abcdefgh');
  });

  it('removes CSI with private modes and private SGR look-alikes', () => {
    expect(sanitize('\x1b[?1049hx\x1b[?25ly\x1b[>4;2mz\x1b[=1m!\x1b[1 q')).toBe('xyz!');
  });

  it('removes OSC titles terminated by BEL and by ST', () => {
    expect(sanitize('\x1b]0;evil title\x07ok')).toBe('ok');
    expect(sanitize('\x1b]2;evil title\x1b\\ok')).toBe('ok');
    expect(sanitize('\x1b]8;;https://x.example\x1b\\link\x1b]8;;\x1b\\')).toBe('link');
  });

  it('removes DCS, APC, PM and SOS strings', () => {
    expect(sanitize('\x1bPq#0;2;0;0;0\x1b\\a\x1b_apc\x1b\\b\x1b^pm\x1b\\c\x1bXsos\x1b\\d')).toBe('abcd');
  });

  it('removes two-byte escape sequences and those with intermediates', () => {
    expect(sanitize('x\x1b7a\x1b8b\x1bc\x1b(Bd\x1b=e\x1b#8f')).toBe('xabdef');
  });

  it('removes every other C0 control, carriage return, backspace and BEL included', () => {
    expect(sanitize('a\rb\bc\x07d\x00e\x7ff\x0bg\x0ch\x0ei\x1fj')).toBe('abcdefghij');
  });

  it('removes C1 controls and swallows 8-bit CSI and OSC sequences', () => {
    expect(sanitize('a\x85b\x9b2Jc\x9d0;title\x07d\x9b31me\x9d0;t\x9cf\x90dcs\x9cg')).toBe('abcdefg');
  });

  it('lets ESC, CAN and SUB abort an unfinished sequence', () => {
    expect(sanitize('\x1b[31\x1b[1mx')).toBe('\x1b[1mx');
    expect(sanitize('\x1b[31\x18y\x1b]0;t\x1az')).toBe('yz');
  });

  it('skips a CSI made malformed by a non-ASCII character up to its final byte', () => {
    expect(sanitize('\x1b[3é1mx')).toBe('x');
  });

  it('drops a lone ESC at the end of a chunk and keeps the character that follows', () => {
    const s = createSanitizer();
    expect(s.push('abc\x1b')).toBe('abc');
    expect(s.push('é!')).toBe('é!');
    expect(s.push('\x1b')).toBe('');
    expect(s.end()).toBe('');
  });

  it('treats a lone ESC followed by a final byte as a two-byte sequence', () => {
    expect(feed(['abc\x1b', '7x'])).toBe('abcx');
  });

  it('recognizes an escape sequence split across chunks', () => {
    const s = createSanitizer();
    expect(s.push('a\x1b[3')).toBe('a');
    expect(s.push('1mb\x1b')).toBe('\x1b[31mb');
    expect(s.push('[0')).toBe('');
    expect(s.push('m')).toBe('\x1b[0m');
    expect(feed(['x\x1b]0;ti', 'tle\x07y'])).toBe('xy');
    expect(feed(['x\x1b]0;title\x1b', '\\y'])).toBe('xy');
  });

  it('gives the same result for hostile input fed one character at a time', () => {
    const whole = sanitize(HOSTILE);
    expect(whole).toBe('abcde\x1b[1;31mf\x1b[0mghijkl');
    expect(feed([...HOSTILE])).toBe(whole);
  });

  it('decodes UTF-8 split across byte chunks into whole characters', () => {
    const bytes = new TextEncoder().encode('é漢😀!');
    const s = createSanitizer();
    const parts: string[] = [];
    for (const b of bytes) parts.push(s.push(Uint8Array.of(b)));
    parts.push(s.end());
    expect(parts.join('')).toBe('é漢😀!');
    expect(parts.some((p) => p.includes('\uFFFD'))).toBe(false);
  });

  it('turns invalid bytes and a truncated character into U+FFFD', () => {
    expect(feed([Uint8Array.of(0x61, 0xff, 0x62)])).toBe('a\uFFFDb');
    const s = createSanitizer();
    expect(s.push(Uint8Array.of(0x61, 0xe6, 0xbc))).toBe('a');
    expect(s.end()).toBe('\uFFFD');
  });

  it('removes escape sequences that arrive as bytes, split anywhere', () => {
    const bytes = new TextEncoder().encode(HOSTILE);
    const chunks: Uint8Array[] = [];
    for (let i = 0; i < bytes.length; i += 3) chunks.push(bytes.slice(i, i + 3));
    expect(feed(chunks)).toBe('abcde\x1b[1;31mf\x1b[0mghijkl');
  });

  it('rejoins a surrogate pair split across string chunks', () => {
    const s = createSanitizer();
    expect(s.push('a\ud83d')).toBe('a');
    expect(s.push('\ude00b')).toBe('😀b');
    expect(feed(['\ud83d'])).toBe('\uFFFD');
    expect(sanitize('x\udc00y\ud800z')).toBe('x\uFFFDy\uFFFDz');
  });

  it('abandons a huge unterminated OSC after the bound and shows what follows', () => {
    const input = '\x1b]0;' + 'a'.repeat(10_000) + 'hello';
    const expected = 'a'.repeat(10_000 - (SANITIZE_SEQUENCE_MAX - 4)) + 'hello';
    expect(sanitize(input)).toBe(expected);
    const chunks: string[] = [];
    for (let i = 0; i < input.length; i += 100) chunks.push(input.slice(i, i + 100));
    expect(feed(chunks)).toBe(expected);
  });

  it('never lets an abandoned sequence emit its introducer', () => {
    const out = sanitize('\x1b[' + '1;'.repeat(5_000) + 'mtext');
    expect(out.includes('\x1b')).toBe(false);
    expect(out.endsWith('mtext')).toBe(true);
  });

  it('strips SGR and folds line breaks for one-line fields', () => {
    expect(stripSgr('\x1b[31mred\x1b[0m')).toBe('red');
    expect(sanitizeLine('fix \x1b[1mthe\x1b[0m bug\r\n\n\tin foo\x1b]0;t\x07')).toBe('fix the bug in foo');
  });
});

describe('sanitizeLine on plain text', () => {
  it('gives what the full sanitizer gives, for text with and without anything to take out', () => {
    const alphabet = ['a', ' ', '·', '●', 'é', '漢', '😀', '\ud83d', '\ude00', '\x1b[1m', '\x1b]0;t\x07', '\x7f', '\x85', '\x9b', '\n', '\t', '\r', '\x07', '\ufeff', '\uffff'];
    const next = seeded(11);
    for (let n = 0; n < 2000; n++) {
      const text = Array.from({ length: next(12) }, () => alphabet[next(alphabet.length)]).join('');
      const full = stripSgr(sanitize(text)).replace(/[ ]*[\n\t][\n\t ]*/g, ' ');
      expect(sanitizeLine(text)).toBe(full);
    }
  });
});

describe('what an agent cannot hide or reorder', () => {
  it('ends an unterminated DCS, OSC, APC, PM or SOS at a newline and shows its text, so nothing after it is hidden', () => {
    expect(sanitize('visible\n\x1bPqIMPORTANT\nnext\n')).toBe('visible\nIMPORTANT\nnext\n');
    expect(feed(['visible\n\x1bP', '1;2q', 'IMPOR', 'TANT', '\n', 'next\n'])).toBe('visible\nIMPORTANT\nnext\n');
    expect(sanitize('visible\n\x1bPq\nIMPORTANT\n')).toBe('visible\n\nIMPORTANT\n');
    const cases: [string, string][] = [
      ['\x1b]0;title', 'title'],
      ['\x1b_apc', 'apc'],
      ['\x1b^pm', 'pm'],
      ['\x1bXsos', 'sos'],
      ['\x90$qdcs', 'dcs'],
      ['\x9d2;osc\u202e', 'osc<U+202E>'],
    ];
    for (const [intro, shown] of cases) expect(sanitize(`a${intro}\nb`)).toBe(`a${shown}\nb`);
    expect(sanitize('a\x1b]0;title\x07b\n')).toBe('ab\n'); // a terminated one is dropped whole, as before
  });

  it('shows bidi overrides, isolates, marks and zero-width spaces as <U+XXXX>, in text and in one-line fields', () => {
    const hidden = [0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200b, 0x200e, 0x200f, 0x061c, 0x2060, 0xfeff];
    for (const cp of hidden) {
      const shown = `<U+${cp.toString(16).toUpperCase().padStart(4, '0')}>`;
      const text = `approve ${String.fromCodePoint(cp)}rm -rf`;
      expect(sanitize(text)).toBe(`approve ${shown}rm -rf`);
      expect(sanitizeLine(text)).toBe(`approve ${shown}rm -rf`);
    }
    expect(sanitize('access\u202e \u2066// check\u2069 \u2066if admin\u2069')).toBe('access<U+202E> <U+2066>// check<U+2069> <U+2066>if admin<U+2069>');
  });

  it('keeps ZWJ and ZWNJ, which emoji sequences and scripts need', () => {
    const family = '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}';
    expect(sanitize(family)).toBe(family);
    expect(sanitizeLine(`\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645 ${family}`)).toBe(`\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645 ${family}`);
  });
});
