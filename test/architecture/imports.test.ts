/**
 * The direction of imports (docs/architecture.md) as a test: every import of
 * every source file is read with TypeScript's own pre-processor and checked
 * against the layer it lands in, and no two files may import each other in a
 * loop. A new import against the rule fails here with the file and the line.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

type Layer = 'core' | 'store' | 'components' | 'io' | 'entry';

/** The layer a repository path belongs to, or undefined outside the source. */
function layerOf(path: string): Layer | undefined {
  if (path.startsWith('src/core/')) return 'core';
  if (path.startsWith('src/io/')) return 'io';
  if (path.startsWith('store/')) return 'store';
  if (path.startsWith('components/')) return 'components';
  if (path.startsWith('src/')) return 'entry';
  return undefined;
}

/** What each layer may import of the project (itself always). */
const MAY_IMPORT: Readonly<Record<Layer, readonly Layer[]>> = {
  core: ['core'],
  store: ['store', 'core'],
  components: ['components', 'store', 'core'],
  io: ['io', 'components', 'store', 'core'],
  entry: ['entry', 'io', 'components', 'store', 'core'],
};

/** The npm packages (and node: modules) each layer may import; entry and io may import any. */
const PACKAGES: Partial<Readonly<Record<Layer, RegExp>>> = {
  core: /^(string-width|strip-ansi)$/,
  store: /^zustand(\/vanilla)?$/,
  components: /^(react|ink|zustand)$/,
};

/** Only the cockpit's wiring renders components; the rest of src/io never imports them. */
const IO_RENDERS = 'src/io/cockpit/';

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const rel = posix.join(dir, name);
    if (statSync(join(ROOT, rel)).isDirectory()) return sources(rel);
    return /\.(ts|tsx)$/.test(name) && !name.endsWith('.d.ts') ? [rel] : [];
  });
}

interface Import {
  readonly from: string;
  readonly spec: string;
  /** The imported repository path, for a relative import. */
  readonly to?: string;
  readonly line: number;
}

const files = [...sources('src'), ...sources('store'), ...sources('components')];
const known = new Set(files);

function importsOf(file: string): Import[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const info = ts.preProcessFile(text, true, true);
  return info.importedFiles.map((f) => {
    const line = text.slice(0, f.pos).split('\n').length;
    if (!f.fileName.startsWith('.')) return { from: file, spec: f.fileName, line };
    const base = posix.normalize(posix.join(posix.dirname(file), f.fileName)).replace(/\.js$/, '');
    const to = [`${base}.ts`, `${base}.tsx`].find((c) => known.has(c)) ?? base;
    return { from: file, spec: f.fileName, to, line };
  });
}

const all = files.flatMap(importsOf);

/** Why an import breaks the rule, or null. */
function breach(i: Import): string | null {
  const from = layerOf(i.from);
  if (from === undefined) return null;
  if (i.to === undefined) {
    const allowed = PACKAGES[from];
    return allowed === undefined || allowed.test(i.spec) ? null : `${from} may not import the package ${i.spec}`;
  }
  if (!known.has(i.to)) return `imports ${i.spec}, which is no source file`;
  const to = layerOf(i.to);
  if (to === undefined) return `imports ${i.to}, outside the source`;
  if (!MAY_IMPORT[from].includes(to)) return `${from} may not import ${to} (${i.to})`;
  if (from === 'io' && to === 'components' && !i.from.startsWith(IO_RENDERS)) return `only ${IO_RENDERS} renders components (${i.to})`;
  return null;
}

/** Every loop of imports between files, each as the files in order. */
function cycles(): string[][] {
  const edges = new Map<string, string[]>();
  for (const i of all) if (i.to !== undefined && known.has(i.to)) edges.set(i.from, [...(edges.get(i.from) ?? []), i.to]);
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (f: string): void => {
    state.set(f, 'open');
    stack.push(f);
    for (const g of edges.get(f) ?? []) {
      if (state.get(g) === 'open') found.push(stack.slice(stack.indexOf(g)));
      else if (state.get(g) === undefined) visit(g);
    }
    stack.pop();
    state.set(f, 'done');
  };
  for (const f of files) if (state.get(f) === undefined) visit(f);
  return found;
}

describe('the direction of imports', () => {
  it('reads the imports of every layer', () => {
    for (const layer of ['core', 'store', 'components', 'io', 'entry'] as const) {
      expect(all.some((i) => layerOf(i.from) === layer), layer).toBe(true);
    }
  });

  it('has no import against the documented direction', () => {
    const breaches = all.flatMap((i) => {
      const why = breach(i);
      return why === null ? [] : [`${i.from}:${i.line}: ${why}`];
    });
    expect(breaches).toEqual([]);
  });

  it('has no files that import each other in a loop', () => {
    expect(cycles().map((c) => c.join(' -> '))).toEqual([]);
  });

  it('catches an import that runs back up', () => {
    expect(breach({ from: 'src/core/x.ts', spec: '../../store/board.js', to: 'store/board.ts', line: 1 })).toBe('core may not import store (store/board.ts)');
    expect(breach({ from: 'src/io/agents/x.ts', spec: '../../../components/Cockpit.js', to: 'components/Cockpit.tsx', line: 1 })).toBe(
      'only src/io/cockpit/ renders components (components/Cockpit.tsx)',
    );
    expect(breach({ from: 'store/x.ts', spec: 'node:fs', line: 1 })).toBe('store may not import the package node:fs');
  });
});

