/**
 * docs/architecture.md renders cleanly as Markdown: no table is cut in two
 * by a blank line (the rows after it would show as plain text), every row
 * has its header's columns, and no line outside a code block runs past 200
 * characters (a reader's window, a diff's side by side). And the docs stand
 * alone: none cites an issue by its number (the issues are not in the
 * repository), but the performance log, a dated record; and
 * docs/performance.md stays a reference of at most 250 lines.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DOC = 'docs/architecture.md';
const WIDEST = 200;

/** The doc's lines with their numbers, code blocks left out. */
function prose(file: string): { n: number; line: string }[] {
  let fenced = false;
  return readFileSync(`${ROOT}/${file}`, 'utf8')
    .split('\n')
    .flatMap((line, i) => {
      if (line.startsWith('```')) {
        fenced = !fenced;
        return [];
      }
      return fenced ? [] : [{ n: i + 1, line }];
    });
}

/** The cells of a table row, with escaped pipes and code spans kept whole. */
const cells = (row: string): number => row.replace(/`[^`]*`/g, 'c').replace(/\\\|/g, 'p').replace(/^\||\|$/g, '').split('|').length;
const isRow = (line: string): boolean => line.startsWith('|');
const isRule = (line: string): boolean => /^\|(\s*:?-+:?\s*\|)+$/.test(line);

describe(DOC, () => {
  it(`has no line past ${WIDEST} characters outside code blocks`, () => {
    const long = prose(DOC).flatMap(({ n, line }) => ([...line].length > WIDEST ? [`${DOC}:${n}: ${[...line].length} characters`] : []));
    expect(long).toEqual([]);
  });

  it('has every table whole: a row starts a table only as its header, and each row has the header\'s columns', () => {
    const lines = prose(DOC);
    const broken: string[] = [];
    let columns = 0;
    lines.forEach(({ n, line }, i) => {
      if (!isRow(line)) {
        columns = 0;
        return;
      }
      if (columns === 0) {
        if (!isRule(lines[i + 1]?.line ?? '')) broken.push(`${DOC}:${n}: a row with no table (a blank line cut its table?)`);
        columns = cells(line);
      } else if (cells(line) !== columns) {
        broken.push(`${DOC}:${n}: ${cells(line)} cells where its header has ${columns}`);
      }
    });
    expect(broken).toEqual([]);
  });
});

/** docs/performance.md stays a reference (how to bench, today's table, a paragraph per kept optimisation); detail goes to docs/perf-log.md. */
const PERFORMANCE_MAX_LINES = 250;

describe('docs/performance.md', () => {
  it(`is at most ${PERFORMANCE_MAX_LINES} lines`, () => {
    const lines = readFileSync(`${ROOT}/docs/performance.md`, 'utf8').trimEnd().split('\n').length;
    expect(lines).toBeLessThanOrEqual(PERFORMANCE_MAX_LINES);
  });
});

/** The one doc allowed to name issues: the dated log. */
const NAMES_ISSUES = new Set(['docs/perf-log.md']);

describe('the docs', () => {
  it('cite no issue by its number', () => {
    const docs = ['README.md', ...readdirSync(`${ROOT}/docs`).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)].filter((d) => !NAMES_ISSUES.has(d));
    const hits = docs.flatMap((doc) => prose(doc).flatMap(({ n, line }) => (/\b[Ii]ssues? ?#?\d+/.test(line) ? [`${doc}:${n}: ${line.trim()}`] : [])));
    expect(hits).toEqual([]);
  });
});
