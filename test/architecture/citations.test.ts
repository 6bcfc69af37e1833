/**
 * The repository stands alone (docs/spec.md): code, tests and docs
 * cite only docs/, and every `docs/NAME.md, "Heading"` they cite names a doc
 * that exists and a heading in it, so a reader with only the repository can
 * follow each reference.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SELF = 'test/architecture/citations.test.ts';

function files(rel: string): string[] {
  const abs = join(ROOT, rel);
  if (statSync(abs).isFile()) return [rel];
  return readdirSync(abs).flatMap((name) => {
    if (name === 'node_modules' || name === 'build' || name === 'dist') return [];
    const sub = posix.join(rel, name);
    return statSync(join(ROOT, sub)).isDirectory() ? files(sub) : /\.(ts|tsx|mjs|js|c|md)$/.test(name) ? [sub] : [];
  });
}

const SCANNED = ['src', 'components', 'store', 'test', 'docs', 'README.md'].flatMap(files).filter((f) => f !== SELF);

/** Documents outside the repository, by the words that cite them (built in pieces so this file does not cite them). */
const OUTSIDE = new RegExp(['STYLE\\.md', 'LIBRARY' + '-NOTES', 'DESIGN\\.md', '\\.\\./shared', '\\b[Ss]eed 00\\d'].join('|'));

/** An issue cited by name or number (`(issue: approvals)`, `issue "a new user's first hour"`, `issue 17`): issues are not in the repository. */
const ISSUE = /\(issue\b|\bissue:|\bissue "|\bissues? ?#?\d+/i;

/** A file's text with comment line breaks joined, so a citation wrapped over two lines reads as one. */
const joined = (text: string): string => text.replace(/[ \t]*\r?\n[ \t]*(?:\*(?!\/)|\/\/)?[ \t]*/g, ' ');

/** The headings of a doc, lower case, without backticks. */
function headings(doc: string): string[] {
  return [...readFileSync(join(ROOT, doc), 'utf8').matchAll(/^#+ (.+)$/gm)].map((m) => m[1]!.replace(/`/g, '').toLowerCase());
}

describe('citations', () => {
  it('name no document outside the repository', () => {
    const found = SCANNED.flatMap((file) =>
      readFileSync(join(ROOT, file), 'utf8')
        .split('\n')
        .flatMap((line, i) => (OUTSIDE.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(found).toEqual([]);
  });

  it('in the code name no issue: the docs/ page that holds the rule instead', () => {
    const code = SCANNED.filter((file) => /^(src|store|components)\//.test(file) && !file.endsWith('.md'));
    const found = code.flatMap((file) => {
      const m = ISSUE.exec(joined(readFileSync(join(ROOT, file), 'utf8')));
      return m ? [`${file}: ${m.input.slice(Math.max(0, m.index - 40), m.index + 40)}`] : [];
    });
    expect(found).toEqual([]);
  });

  it('of a docs heading name a doc that exists and a heading it has', () => {
    const known = new Map<string, string[]>();
    const missing: string[] = [];
    for (const file of SCANNED) {
      const text = joined(readFileSync(join(ROOT, file), 'utf8'));
      for (const m of text.matchAll(/(docs\/[\w-]+\.md), ((?:"[^"]{1,80}"(?:, | and )?)+)/g)) {
        const doc = m[1]!;
        if (!known.has(doc)) {
          try {
            known.set(doc, headings(doc));
          } catch {
            missing.push(`${file}: ${doc} does not exist`);
            continue;
          }
        }
        for (const cited of m[2]!.matchAll(/"([^"]+)"/g)) {
          const name = cited[1]!.replace(/`/g, '').toLowerCase();
          if (!known.get(doc)!.some((h) => h.startsWith(name))) missing.push(`${file}: ${doc} has no heading "${cited[1]}"`);
        }
      }
    }
    expect(missing).toEqual([]);
  });
});
