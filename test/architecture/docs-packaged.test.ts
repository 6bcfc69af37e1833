/**
 * Docs that tai's messages and usage texts point to ship in the package, so a
 * pointer printed to a user never leads nowhere: every `docs/NAME.md` named in a string of the source (not a
 * comment) exists and is in what `npm pack` would publish.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const rel = posix.join(dir, name);
    if (statSync(join(ROOT, rel)).isDirectory()) return sources(rel);
    return /\.(ts|tsx)$/.test(name) && !name.endsWith('.d.ts') ? [rel] : [];
  });
}

/** Every docs path named in a string or template literal of `file`, with the file. */
function docsNamedIn(file: string): { file: string; doc: string }[] {
  const found: { file: string; doc: string }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
      for (const doc of node.text.match(/docs\/[A-Za-z0-9_/-]+\.md/g) ?? []) found.push({ file, doc });
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true));
  return found;
}

const named = [...sources('src'), ...sources('store'), ...sources('components')].flatMap(docsNamedIn);

describe('docs named by messages', () => {
  it('are found in the source (the scan reads strings, not comments)', () => {
    expect(named.map((n) => n.doc)).toContain('docs/lanes.md');
    expect(named.map((n) => n.file)).not.toContain('store/board-types.ts');
  });

  it('exist and ship in the package', () => {
    const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const packed = new Set((JSON.parse(out) as { files: { path: string }[] }[])[0]?.files.map((f) => f.path));
    const missing = named.filter((n) => !existsSync(join(ROOT, n.doc)) || !packed.has(n.doc)).map((n) => `${n.file} names ${n.doc}`);
    expect(missing).toEqual([]);
  });
});
