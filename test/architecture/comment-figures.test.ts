/**
 * Comments say why; measured figures and session numbers belong in the docs
 * (docs/perf-log.md, "Figures taken out of code comments"). A figure reads as
 * a measurement when it is a decimal or a range with a unit (`13.55 MB`,
 * `5-30 ms`), a before and after (`116 -> 85 MB`), or a session's number;
 * quoted text is another program's words and is not read. Comments cite
 * docs/ only: an issue's number or a house-style rule's points outside the
 * repository.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type Comment, comments, sourceFiles } from './comments.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const read = new Map<string, Comment[]>();
/** A file's comments, parsed once for both guards below. */
function commentsOf(file: string): Comment[] {
  if (!read.has(file)) read.set(file, comments(file, readFileSync(join(ROOT, file), 'utf8')));
  return read.get(file)!;
}

const UNIT = '(?:ms|µs|us|ns|s|MB|KB|kB|MiB|KiB|GB|%)';
const FIGURE = new RegExp(
  [`\\b\\d+\\.\\d+ ?${UNIT}(?![\\w])`, `\\b\\d+(?:\\.\\d+)?-\\d+(?:\\.\\d+)? ?${UNIT}(?![\\w])`, `\\d ?-> ?~?\\d`, `\\b[Ss]ession \\d+`].join('|'),
);

const sources = (dir: string): string[] => sourceFiles(ROOT, dir);

describe('comments in src, store and components', () => {
  it('hold no measured figure and no session number', () => {
    const hits = ['src', 'store', 'components']
      .flatMap(sources)
      .flatMap((file) =>
        commentsOf(file).flatMap(({ line, text }) =>
          text.split('\n').flatMap((row, i) => (FIGURE.test(row) ? [`${file}:${line + i}: ${row.trim()}`] : [])),
        ),
      );
    expect(hits).toEqual([]);
  });
});

const OUTSIDE = /\b[Ii]ssues? ?#?\d+|\bSTYLE\b ?(?:habit )?\d+/;

describe('comments in src, store and components', () => {
  it('cite docs/, never an issue by its number nor a house-style rule', () => {
    const hits = ['src', 'store', 'components']
      .flatMap(sources)
      .flatMap((file) => commentsOf(file).flatMap(({ line, text }) => text.split('\n').flatMap((row, i) => (OUTSIDE.test(row) ? [`${file}:${line + i}: ${row.trim()}`] : []))));
    expect(hits).toEqual([]);
  });
});
