/**
 * No function longer than about 80 lines (docs/architecture.md, "Small
 * functions and files"): a longer body holds more than one decision, each wanting its own
 * name. Every function, method, accessor and arrow of src, store and
 * components is read through the parser (braces in strings, regexes and
 * templates cannot fool it); one whose body spans more lines fails, named. The native C files are read by their layout.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from './comments.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The most lines a function's body may span, its braces included. */
const FUNCTION_LINES_MAX = 80;

/** A function's body that spans more than the limit. */
interface Long {
  /** Where the function starts, from 1. */
  line: number;
  /** Its name: declared, or the variable, property or class member it is assigned to. */
  name: string;
  /** Lines its body spans, braces included. */
  lines: number;
}

type FunctionNode = ts.FunctionLikeDeclaration & { body: ts.Node };

const isFunction = (node: ts.Node): node is FunctionNode =>
  (ts.isFunctionDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)) &&
  node.body !== undefined;

/** A function's own name, else the name of what holds it (`const f = () => …`, `{ tick(now) { … } }`). */
function nameOf(node: FunctionNode, source: ts.SourceFile): string {
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  if (node.name) return node.name.getText(source);
  const holder = node.parent;
  if ((ts.isVariableDeclaration(holder) || ts.isPropertyAssignment(holder) || ts.isPropertyDeclaration(holder)) && holder.name) return holder.name.getText(source);
  return '(anonymous)';
}

/** The functions of a file's text whose body spans more than `max` lines. */
export function longFunctions(fileName: string, text: string, max = FUNCTION_LINES_MAX): Long[] {
  const kind = fileName.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, kind);
  const lineOf = (pos: number): number => source.getLineAndCharacterOfPosition(pos).line + 1;
  const found: Long[] = [];
  const visit = (node: ts.Node): void => {
    if (isFunction(node)) {
      const lines = lineOf(node.body.end) - lineOf(node.body.getStart(source)) + 1;
      if (lines > max) found.push({ line: lineOf(node.getStart(source)), name: nameOf(node, source), lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const sources = (dir: string): string[] => sourceFiles(ROOT, dir);

describe('the functions of src, store and components', () => {
  it(`each span at most ${FUNCTION_LINES_MAX} lines`, () => {
    const long = ['src', 'store', 'components']
      .flatMap(sources)
      .flatMap((file) => longFunctions(file, readFileSync(join(ROOT, file), 'utf8')).map((f) => `${file}:${f.line}: ${f.name} (${f.lines} lines)`));
    expect(long).toEqual([]);
  });

  it('are measured by their bodies, whatever holds them, braces in strings and templates not counted', () => {
    const body = (n: number): string => Array.from({ length: n }, (_, i) => `  const a${i} = '}' + \`{\${i}\`;`).join('\n');
    const fixture = [
      `function declared() {\n${body(3)}\n}`,
      `const arrow = (x: number) => {\n${body(3)}\n};`,
      `const object = { method() {\n${body(4)}\n} };`,
      `class Held { get value() {\n${body(2)}\n} }`,
      `export default function () {\n${body(1)}\n}`,
      `const short = () => {};`,
    ].join('\n');
    expect(longFunctions('fixture.ts', fixture, 2)).toEqual([
      { line: 1, name: 'declared', lines: 5 },
      { line: 6, name: 'arrow', lines: 5 },
      { line: 11, name: 'method', lines: 6 },
      { line: 17, name: 'value', lines: 4 },
      { line: 21, name: '(anonymous)', lines: 3 },
    ]);
  });
});

/** The C functions of a file's text (K&R layout: a definition's line ends in `{`, its body ends at a `}` alone in column 0) over `max` lines. */
export function longCFunctions(text: string, max = FUNCTION_LINES_MAX): Long[] {
  const lines = text.split('\n');
  const found: Long[] = [];
  for (let i = 0; i < lines.length; i++) {
    const head = /^[A-Za-z_][\w \t*]*?\b(\w+)\s*\([^;]*\)\s*\{\s*$/.exec(lines[i] ?? '');
    if (head === null || /^(struct|enum|union|typedef)\b/.test(lines[i] ?? '')) continue;
    const end = lines.findIndex((line, j) => j > i && line === '}');
    if (end < 0) continue;
    if (end - i + 1 > max) found.push({ line: i + 1, name: head[1] ?? '(anonymous)', lines: end - i + 1 });
    i = end;
  }
  return found;
}

describe('the functions of the native C files', () => {
  const dir = join(ROOT, 'src/native');
  const files = readdirSync(dir).filter((f) => f.endsWith('.c'));

  it(`each span at most ${FUNCTION_LINES_MAX} lines`, () => {
    expect(files.length).toBeGreaterThan(0);
    const long = files.flatMap((f) => longCFunctions(readFileSync(join(dir, f), 'utf8')).map((fn) => `src/native/${f}:${fn.line}: ${fn.name} (${fn.lines} lines)`));
    expect(long).toEqual([]);
  });

  it('are measured from the definition to the brace that closes it in column 0', () => {
    const body = (n: number): string => Array.from({ length: n }, (_, i) => `    if (x) { y = ${i}; }`).join('\n');
    const fixture = [`static int small(int x) {\n${body(1)}\n}`, `int main(int argc, char **argv) {\n${body(3)}\n}`, 'struct s {\n int a;\n int b;\n int c;\n};'].join('\n');
    expect(longCFunctions(fixture, 4)).toEqual([{ line: 4, name: 'main', lines: 5 }]);
  });
});
