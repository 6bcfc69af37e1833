import { describe, expect, it } from 'vitest';
import { DEFAULT_PREFIX, KeyScanner, keyLength, parsePrefix, prefixName } from '../../../src/core/input/keys.js';

const P = DEFAULT_PREFIX;

describe('KeyScanner', () => {
  it('says a chunk passes only when its scan would hand it on whole and change nothing (random chunks, in any state)', () => {
    const alphabet = ['a', 'q', '[', 'M', '1', ';', '~', 'O', '\r', P, '\x1b', '\x1b[200~', '\x1b[201~', '\x1b[<0;1;1M', '\x1b[M', '@', '?'];
    let seed = 7;
    const pick = (): string => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return alphabet[seed % alphabet.length]!;
    };
    const chunk = (): string => Array.from({ length: 1 + (Math.floor(seed / 7) % 3) }, pick).join('');
    let passed = 0;
    for (let run = 0; run < 400; run++) {
      const prelude = Array.from({ length: run % 5 }, chunk);
      const next = chunk();
      const after = chunk();
      const skipped = new KeyScanner();
      const scanned = new KeyScanner();
      for (const c of prelude) {
        skipped.push(c);
        scanned.push(c);
      }
      if (!skipped.passes(next)) continue;
      passed++;
      expect(scanned.push(next), JSON.stringify([prelude, next])).toEqual([{ kind: 'input', data: next }]);
      // Nothing changed: both read what follows alike.
      expect(skipped.push(after)).toEqual(scanned.push(after));
      expect([skipped.awaiting, skipped.prompting, skipped.copying]).toEqual([scanned.awaiting, scanned.prompting, scanned.copying]);
    }
    expect(passed).toBeGreaterThan(50);
  });

  it('passes every byte unchanged when there is no prefix', () => {
    const k = new KeyScanner();
    const chunk = 'ls -la\r\x03\x04\x1b[A\x1b[15~\x1bf\x01';
    expect(k.push(chunk)).toEqual([{ kind: 'input', data: chunk }]);
  });

  it('reads a prefix and its key from one chunk, with bytes around them', () => {
    const k = new KeyScanner();
    expect(k.push(`ab${P}ncd`)).toEqual([
      { kind: 'input', data: 'ab' },
      { kind: 'command', command: { cmd: 'focus', to: 'next' } },
      { kind: 'input', data: 'cd' },
    ]);
  });

  it('reads a prefix and its key from two chunks', () => {
    const k = new KeyScanner();
    expect(k.push(P)).toEqual([]);
    expect(k.awaiting).toBe(true);
    expect(k.push('z')).toEqual([{ kind: 'command', command: { cmd: 'zoom' } }]);
  });

  it('sends the prefix itself when it is typed twice', () => {
    const k = new KeyScanner();
    expect(k.push(`${P}${P}`)).toEqual([{ kind: 'input', data: P }]);
  });

  it('maps arrows after the prefix to focus moves, even split across chunks', () => {
    const k = new KeyScanner();
    expect(k.push(`${P}\x1b[`)).toEqual([]);
    expect(k.push('D')).toEqual([{ kind: 'command', command: { cmd: 'focus', to: 'left' } }]);
    expect(k.push(`${P}\x1bOA${P}\x1b[B${P}\x1b[C`).map((a) => a.kind === 'command' && a.command)).toEqual([
      { cmd: 'focus', to: 'up' },
      { cmd: 'focus', to: 'down' },
      { cmd: 'focus', to: 'right' },
    ]);
  });

  it('closes, opens help and drops unbound keys after the prefix', () => {
    const k = new KeyScanner();
    expect(k.push(`${P}x`)).toEqual([{ kind: 'command', command: { cmd: 'close' } }]);
    expect(k.push(`${P}Q`)).toEqual([]);
    expect(k.push(`${P}?`)).toEqual([{ kind: 'command', command: { cmd: 'help' } }]);
    expect(k.push('a')).toEqual([{ kind: 'command', command: { cmd: 'help' } }]);
    expect(k.push('a')).toEqual([{ kind: 'input', data: 'a' }]);
  });

  it('scrolls with PageUp and PageDown after the prefix, then any key returns', () => {
    const k = new KeyScanner();
    expect(k.push(`${P}\x1b[5~\x1b[5~\x1b[6~`)).toEqual([
      { kind: 'command', command: { cmd: 'scroll', pages: -1 } },
      { kind: 'command', command: { cmd: 'scroll', pages: -1 } },
      { kind: 'command', command: { cmd: 'scroll', pages: 1 } },
    ]);
    expect(k.push('qls')).toEqual([
      { kind: 'command', command: { cmd: 'scroll', pages: 0 } },
      { kind: 'input', data: 'ls' },
    ]);
  });

  it('returns a scrolled pane at the first key and hands that key on, but q and Esc only return', () => {
    const k = new KeyScanner();
    k.push(`${P}\x1b[5~`);
    expect(k.push('ls')).toEqual([
      { kind: 'command', command: { cmd: 'scroll', pages: 0 } },
      { kind: 'input', data: 'ls' },
    ]);
    k.scrolledBack(true); // the wheel
    expect(k.push('\x1b')).toEqual([{ kind: 'command', command: { cmd: 'scroll', pages: 0 } }]);
    k.scrolledBack(true);
    expect(k.push(`${P}z`)).toEqual([
      { kind: 'command', command: { cmd: 'scroll', pages: 0 } },
      { kind: 'command', command: { cmd: 'zoom' } },
    ]);
    k.scrolledBack(true);
    k.scrolledBack(false); // the wheel brought it back to the bottom
    expect(k.push('q')).toEqual([{ kind: 'input', data: 'q' }]);
  });

  it('never reads a prefix inside a bracketed paste', () => {
    const k = new KeyScanner();
    const paste = `\x1b[200~a${P}z\nb\x1b[201~`;
    expect(k.push(paste + `${P}z`)).toEqual([
      { kind: 'input', data: paste },
      { kind: 'command', command: { cmd: 'zoom' } },
    ]);
  });

  it('keeps a paste end marker split across chunks inside the paste', () => {
    const k = new KeyScanner();
    const out = [...k.push(`\x1b[200~x${P}\x1b[20`), ...k.push(`1~${P}z`)];
    expect(out).toEqual([
      { kind: 'input', data: `\x1b[200~x${P}` },
      { kind: 'input', data: '\x1b[201~' },
      { kind: 'command', command: { cmd: 'zoom' } },
    ]);
  });

  it('passes a lone Escape at the end of a chunk at once', () => {
    const k = new KeyScanner();
    expect(k.push('\x1b')).toEqual([{ kind: 'input', data: '\x1b' }]);
  });

  it('uses a configured prefix', () => {
    const k = new KeyScanner(parsePrefix('C-a'));
    expect(k.push('\x01z\x1d')).toEqual([
      { kind: 'command', command: { cmd: 'zoom' } },
      { kind: 'input', data: '\x1d' },
    ]);
  });
});

describe('prefix names', () => {
  it('parses C-x, ^x and single characters', () => {
    expect(parsePrefix('C-]')).toBe('\x1d');
    expect(parsePrefix('^a')).toBe('\x01');
    expect(parsePrefix('`')).toBe('`');
    expect(parsePrefix('C-1')).toBeUndefined();
    expect(prefixName('\x1d')).toBe('C-]');
  });

  it('measures keys', () => {
    expect(keyLength('\x1b[15~x', 0)).toBe(5);
    expect(keyLength('\x1bOP', 0)).toBe(3);
    expect(keyLength('\x1bb', 0)).toBe(2);
    expect(keyLength('\x1b[1', 0)).toBe(0);
  });
});

import { toPane } from '../../../src/core/input/pane-input.js';

describe('toPane', () => {
  it('sends cursor keys in the mode the program asked for', () => {
    expect(toPane('\x1b[A\x1bOB', { applicationCursorKeys: true, bracketedPaste: false })).toBe('\x1bOA\x1bOB');
    expect(toPane('\x1b[A\x1bOB', { applicationCursorKeys: false, bracketedPaste: false })).toBe('\x1b[A\x1b[B');
  });

  it('keeps paste markers only when the program asked for bracketed paste', () => {
    const paste = '\x1b[200~hi\x1b[201~';
    expect(toPane(paste, { applicationCursorKeys: false, bracketedPaste: true })).toBe(paste);
    expect(toPane(paste, { applicationCursorKeys: false, bracketedPaste: false })).toBe('hi');
  });
});

describe('KeyScanner with the mention prompt', () => {
  it('opens the prompt on the prefix and @ (or a), then hands it every key, the prefix included', () => {
    const k = new KeyScanner();
    expect(k.push(`ls${P}@gem\t`)).toEqual([
      { kind: 'input', data: 'ls' },
      { kind: 'mention' },
      { kind: 'prompt', key: 'g' },
      { kind: 'prompt', key: 'e' },
      { kind: 'prompt', key: 'm' },
      { kind: 'prompt', key: '\t' },
    ]);
    expect(k.prompting).toBe(true);
    expect(k.push(`${P}n\x1b[D\r`)).toEqual([
      { kind: 'prompt', key: P },
      { kind: 'prompt', key: 'n' },
      { kind: 'prompt', key: '\x1b[D' },
      { kind: 'prompt', key: '\r' },
    ]);
    const a = new KeyScanner();
    expect(a.push(`${P}a`)).toEqual([{ kind: 'mention' }]);
  });

  it('passes keys again once the prompt closed', () => {
    const k = new KeyScanner();
    k.push(`${P}@`);
    expect(k.push('\x1b')).toEqual([{ kind: 'prompt', key: '\x1b' }]);
    k.promptClosed();
    expect(k.prompting).toBe(false);
    expect(k.push('ls')).toEqual([{ kind: 'input', data: 'ls' }]);
  });

  it('hands a bracketed paste to the prompt as one piece, even split across chunks', () => {
    const k = new KeyScanner();
    k.push(`${P}@`);
    expect(k.push('\x1b[200~two\nli')).toEqual([{ kind: 'prompt', key: 'two\nli', paste: true }]);
    expect(k.push('nes\x1b[201')).toEqual([{ kind: 'prompt', key: 'nes', paste: true }]);
    expect(k.push('~x')).toEqual([{ kind: 'prompt', key: 'x' }]);
  });
});
