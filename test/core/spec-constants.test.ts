import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import * as agentResults from '../../src/io/agents/agent-results.js';
import { INTERNAL } from './spec-internal.js';

/**
 * docs/spec.md, "Constants": every exported UPPER_CASE constant of src/, store/ and components/ has a row there
 * whose value is the code's, or a place in ./spec-internal.ts saying why it is not contract; and
 * "Switches and environment". test/core/policy.test.ts checks the policy table's rows as well.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SPEC = readFileSync(join(ROOT, 'docs/spec.md'), 'utf8');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

interface Defined {
  readonly name: string;
  /** From the repository's root, `src/core/policy.ts`. */
  readonly file: string;
}

/** The exported `const NAME` declarations of every source file under the folders, read by the parser. */
function exportedConstants(folders: readonly string[]): Defined[] {
  const found: Defined[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'build' && entry.name !== 'node_modules') walk(path);
        continue;
      }
      if (!/\.tsx?$/.test(entry.name) || entry.name.endsWith('.d.ts')) continue;
      const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, false);
      for (const statement of source.statements) {
        if (!ts.isVariableStatement(statement) || !statement.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) continue;
        for (const { name } of statement.declarationList.declarations) {
          if (ts.isIdentifier(name) && /^[A-Z][A-Z0-9_]*$/.test(name.text)) found.push({ name: name.text, file: relative(ROOT, path) });
        }
      }
    }
  };
  for (const folder of folders) walk(join(ROOT, folder));
  return found;
}

interface Row {
  readonly name: string;
  /** The value cell: a number with its unit, or a string in backticks. */
  readonly value: string;
  /** From the repository's root, when the row names its file (`src/` is left out there). */
  readonly file: string | undefined;
}

/** Every table row of the spec that starts with a constant's name in backticks. */
function rows(): Row[] {
  const found: Row[] = [];
  for (const line of SPEC.split('\n')) {
    if (!/^\| `[A-Z][A-Z0-9_]*` \| /.test(line)) continue;
    const cells = line.slice(2, -2).split(' | ');
    const file = /^`([\w/.-]+\.tsx?)`$/.exec(cells.at(-1)!)?.[1];
    found.push({
      name: cells[0]!.slice(1, -1),
      value: cells[1]!,
      file: file === undefined ? undefined : /^(store|components)\//.test(file) ? file : `src/${file}`,
    });
  }
  return found;
}

/** Milliseconds per time unit of the spec's value column; any other unit (bytes, characters, days) is a count. */
const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, min: 60_000, h: 3_600_000 };

/** Milliseconds per unit of a duration constant named in a row with its file, by its name's ending. */
const NAME_MS: [RegExp, number][] = [[/_MS$/, 1], [/_S$/, 1_000], [/_MINUTES$/, 60_000]];

/** A row's value and the code's, made comparable: milliseconds for a duration, a string's escapes (`\x1d`) read. */
function compared(row: Row, code: unknown): [unknown, unknown] {
  const text = /^`([^`]*)`$/.exec(row.value);
  if (text) return [text[1]!.replace(/\\x([0-9a-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))), code];
  const number = /^([0-9.]+)(?: ([a-z]+))?$/.exec(row.value);
  if (!number) return [`a value cell this test can read (a number and its unit, or a string in backticks): ${row.value}`, code];
  const perUnit = UNIT_MS[number[2] ?? ''];
  if (perUnit === undefined || typeof code !== 'number') return [Number(number[1]), code];
  // The policy table's rows name no file: src/core/policy.ts and the outage schedule hold every duration in milliseconds.
  const perName = row.file === undefined ? 1 : NAME_MS.find(([ending]) => ending.test(row.name))?.[1];
  if (perName === undefined) return [`a unit of time in the name of ${row.name}, given in ${number[2]}`, code];
  return [Number(number[1]) * perUnit, code * perName];
}

describe('docs/spec.md, "Constants": every exported constant, contract or internal', () => {
  const defined = exportedConstants(['src', 'store', 'components']);
  const table = rows();
  const rowOf = (c: Defined): Row | undefined => table.find((row) => row.name === c.name && (row.file === undefined || row.file === c.file));

  it('finds the constants (the parser reads the code)', () => {
    expect(defined.length).toBeGreaterThan(300);
    expect(defined).toContainEqual({ name: 'ORCH_PANELS_MAX', file: 'src/core/policy.ts' });
  });

  it('has each one in a row of docs/spec.md or in the internal list, and in only one of them', () => {
    const unclassified = defined.filter((c) => rowOf(c) === undefined && !(c.name in INTERNAL)).map((c) => `${c.file} ${c.name}`);
    expect(unclassified, 'a new exported constant: give it a row in docs/spec.md, "Constants", or a place with its why in test/core/spec-internal.ts').toEqual([]);
    expect(defined.filter((c) => rowOf(c) !== undefined && c.name in INTERNAL).map((c) => c.name)).toEqual([]);
  });

  it('lists as internal only constants the code still exports', () => {
    const names = new Set(defined.map((c) => c.name));
    expect(Object.keys(INTERNAL).filter((name) => !names.has(name))).toEqual([]);
  });

  it('names, in every row that names a file, a constant that file exports', () => {
    const defines = new Set(defined.map((c) => `${c.file} ${c.name}`));
    expect(table.filter((row) => row.file !== undefined && !defines.has(`${row.file} ${row.name}`)).map((row) => `${row.file} ${row.name}`)).toEqual([]);
  });

  it('gives every row the value the code has', async () => {
    const wrong: string[] = [];
    for (const c of defined) {
      const row = rowOf(c);
      if (row === undefined) continue;
      const code = ((await import(join(ROOT, c.file))) as Record<string, unknown>)[c.name];
      const [spec, actual] = compared(row, code);
      if (spec !== actual) wrong.push(`${c.name}: docs/spec.md says ${JSON.stringify(spec)}, ${c.file} has ${JSON.stringify(actual)}`);
    }
    expect(wrong).toEqual([]);
  });

  it('gives a spawn\'s exit codes as the code does', () => {
    const { done, failed, timeout, cancelled } = agentResults.EXIT_CODES;
    expect(SPEC).toContain(`exits ${done} when it is done, ${failed} failed, ${timeout}\ntimeout, ${cancelled} cancelled (\`EXIT_CODES\``);
  });
});

/** Every TAI_* name in the source (TypeScript, the launcher, the native client), a prefix in prose (`TAI_NOTIFY_*`) left out. */
function switchesRead(): string[] {
  const names = new Set<string>();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'build') walk(path);
      } else if (/\.(ts|c|h)$/.test(entry.name) || path.endsWith('bin/tai')) {
        for (const [name] of readFileSync(path, 'utf8').matchAll(/TAI_[A-Z_]+/g)) if (!name.endsWith('_')) names.add(name);
      }
    }
  };
  walk(join(ROOT, 'src'));
  return [...names].sort();
}

describe('docs/spec.md, "Switches and environment"', () => {
  it('names, there or in README.md, every TAI_* variable the code reads', () => {
    const named = (name: string): boolean => [SPEC, README].some((doc) => new RegExp(`(?<![A-Z_])${name}(?![A-Z_])`).test(doc));
    expect(switchesRead().filter((name) => !named(name))).toEqual([]);
  });
});
