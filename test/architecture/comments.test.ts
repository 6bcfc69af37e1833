/**
 * The collector the comment guards read (test/architecture/comments.ts) finds
 * every comment: after a template literal with a `${…}`, a regex, a division
 * and JSX, where a bare scanner loses its place.
 */
import { describe, expect, it } from 'vitest';
import { comments } from './comments.js';

const FIXTURE = [
  "const quote = /'/g; // after a regex",
  'const half = total / 2; // after a division',
  'const greeting = `hello ${name}!`;',
  '// after the template literal',
  'function empty() {',
  '  /* alone in a block */',
  '}',
  'type Event = { kind: 1 } /** a member */ | { kind: 2 };',
  '// at the end',
].join('\n');

describe('the comment collector', () => {
  it('finds every comment of a file, after template literals and regexes too, with its line', () => {
    expect(comments('fixture.ts', FIXTURE).map(({ line, text }) => `${line}: ${text}`)).toEqual([
      '1: // after a regex',
      '2: // after a division',
      '4: // after the template literal',
      '6: /* alone in a block */',
      '8: /** a member */',
      '9: // at the end',
    ]);
  });

  it('reads no comment in JSX text or a string, and blanks quoted text inside a comment', () => {
    const jsx = ['const view = <Text>see // not a comment</Text>;', 'const url = "http://example.com"; // says "13.5 ms" quoted'].join('\n');
    expect(comments('fixture.tsx', jsx)).toEqual([{ line: 2, text: '// says           quoted' }]);
  });
});
