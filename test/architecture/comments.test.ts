/**
 * The collector the comment guards read (test/architecture/comments.ts) finds every comment: after a template
 * literal with a `${…}`, a regex, a division and JSX, where a bare scanner loses its place. Comments say why in a
 * few lines: in SHORT_COMMENTS no header runs over HEADER_LINES_MAX, no other block over BLOCK_LINES_MAX.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { commentBlocks, comments } from './comments.js';

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

describe('comment blocks', () => {
  it('read adjacent comments on their own lines as one block, the first before any code as the header', () => {
    const text = ['/**', ' * head', ' */', "import x from 'x';", '// one', '// two', '/** three */', 'f(); // trailing', '// alone'].join('\n');
    expect(commentBlocks('fixture.ts', text)).toEqual([
      { line: 1, lines: 3, header: true },
      { line: 5, lines: 3, header: false },
      { line: 8, lines: 1, header: false },
      { line: 9, lines: 1, header: false },
    ]);
  });
});

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The most lines a comment block that is not a file's header may span: two lines of why in a JSDoc, or three. */
const BLOCK_LINES_MAX = 5;
/** The most a file's header may span: what the file holds and why, the rest cited from docs/. */
const HEADER_LINES_MAX = 6;
/** Where the rule holds: all the code. */
const SHORT_COMMENTS = {
  under: ['src', 'store', 'components'],
};

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const rel = posix.join(dir, name);
    if (name === 'node_modules' || name === 'build') return [];
    if (statSync(join(ROOT, rel)).isDirectory()) return sources(rel);
    return /\.(ts|tsx)$/.test(name) && !name.endsWith('.d.ts') ? [rel] : [];
  });
}

describe('comments in src, store and components', () => {
  const files = SHORT_COMMENTS.under.flatMap(sources);
  const blocks = files.flatMap((file) => commentBlocks(file, readFileSync(join(ROOT, file), 'utf8')).map((b) => ({ ...b, at: `${file}:${b.line}` })));

  it(`say why in at most ${BLOCK_LINES_MAX} lines a block, file headers aside`, () => {
    expect(files.length).toBeGreaterThan(200);
    expect(blocks.filter((b) => !b.header && b.lines > BLOCK_LINES_MAX).map((b) => `${b.at}: ${b.lines} lines`)).toEqual([]);
  });

  it(`open each file with a header of at most ${HEADER_LINES_MAX} lines`, () => {
    expect(blocks.filter((b) => b.header && b.lines > HEADER_LINES_MAX).map((b) => `${b.at}: ${b.lines} lines`)).toEqual([]);
  });
});
