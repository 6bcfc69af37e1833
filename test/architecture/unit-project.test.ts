/**
 * `npm run test:unit` (the vitest project `unit`, test/vitest.config.ts)
 * promises no child process, pty, tmux or built dist/, so it passes on a fresh
 * clone without a build. Each of its files, and the test helpers it imports,
 * is read for them here; a case that needs one goes into a sibling
 * NAME.process.test.ts, which the process project runs.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { testEnv } from '../helpers/test-env.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** What a unit file must not reach, by the code (comments left out) that reaches it. */
const FORBIDDEN: [string, RegExp][] = [
  ['a child process', /['"`](?:node:)?child_process['"`]/],
  ['a pty', /['"`]node-pty['"`]/],
  ['tmux', /\btmux\b/],
  // The repository's build, found from the working folder, the root or this file: not a dist/ folder a test makes.
  ['the built dist/', /(?:resolve\(|ROOT, ?|new URL\()\s*['"`](?:\.\.\/)*dist\/|['"`](?:\.\.\/)+dist\//],
];

/** The files the unit project runs, as vitest itself lists them. */
function unitFiles(): string[] {
  const vitest = join(ROOT, 'node_modules/vitest/vitest.mjs');
  const args = [vitest, 'list', '--config', 'test/vitest.config.ts', '--project', 'unit', '--filesOnly', '--json'];
  const listed = JSON.parse(execFileSync(process.execPath, args, { cwd: ROOT, env: testEnv(), encoding: 'utf8' })) as { file: string }[];
  return listed.map(({ file }) => relative(ROOT, file));
}

/** A file's code without its comments (a comment may say "as tmux does"). */
function code(file: string): string {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  return ts.createPrinter({ removeComments: true }).printFile(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, kind));
}

/** A test file and the files under test/ it imports, however deep. */
function withHelpers(file: string, seen = new Set<string>()): string[] {
  if (seen.has(file)) return [];
  seen.add(file);
  const imported = [...code(file).matchAll(/from ['"](\.\.?\/[^'"]+)['"]/g)]
    .map((m) => relative(ROOT, resolve(ROOT, dirname(file), m[1]!.replace(/\.js$/, '.ts'))))
    .filter((dep) => dep.startsWith('test/') && existsSync(join(ROOT, dep)));
  return [file, ...imported.flatMap((dep) => withHelpers(dep, seen))];
}

describe('the unit project', () => {
  it('starts no child process, pty or tmux and needs no built dist/, in its files or the helpers they import', () => {
    const files = unitFiles();
    expect(files.length).toBeGreaterThan(50);
    const hits = files.flatMap((file) =>
      withHelpers(file).flatMap((reached) => {
        const text = code(reached);
        const via = reached === file ? '' : ` (through ${reached})`;
        return FORBIDDEN.flatMap(([what, pattern]) => (pattern.test(text) ? [`${file}${via}: ${what}`] : []));
      }),
    );
    expect(hits).toEqual([]);
  });
});
