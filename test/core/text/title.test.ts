import { describe, expect, it } from 'vitest';
import { terminalTitle, TITLE_MAX } from '../../../src/core/text/title.js';

describe('terminalTitle', () => {
  it.each([
    ['vim notes.md', 'vim notes.md'],
    ['  user@host:~/src  ', 'user@host:~/src'],
    ['first line\nsecond line', 'first line'],
    ['a\r\nb', 'a'],
    ['bell\x07 inside', 'bell inside'],
    ['esc\x1b]2;evil\x1b\\ here', 'esc]2;evil\\ here'],
    ['c1\x9b31m csi', 'c131m csi'],
    ['tab\there', 'tab here'],
    ['del\x7f', 'del'],
    ['naïve 日本語 ✓', 'naïve 日本語 ✓'],
    ['', ''],
  ])('makes %j safe as %j', (raw, safe) => {
    expect(terminalTitle(raw)).toBe(safe);
  });

  it('bounds a long title to TITLE_MAX characters, ending in an ellipsis', () => {
    const t = terminalTitle('日'.repeat(500));
    expect([...t]).toHaveLength(TITLE_MAX);
    expect(t.endsWith('…')).toBe(true);
    expect(terminalTitle('x'.repeat(TITLE_MAX))).toBe('x'.repeat(TITLE_MAX));
  });
});
