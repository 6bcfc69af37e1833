/**
 * No test hands the caller's environment to a process it starts: a
 * developer's NO_COLOR, TERM or TAI_PREFIX once failed six tmux tests. Every
 * spawned process gets test/helpers/test-env.ts's explicit environment.
 */
import { spawnSync } from 'node:child_process';
import ts from 'typescript';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { testEnv } from '../helpers/test-env.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/**
 * Not tests (the benchmarks), their own clean environment already (the real
 * agents'), or the network lab that needs root and namespaces to run at all.
 */
const OUTSIDE = new Set(['test/bench', 'test/real-agents', 'test/lab', 'test/fixtures']);

/** Every .ts and .tsx file under `dir`, repository-relative. */
function sources(dir: string): string[] {
  if (OUTSIDE.has(dir) || dir.endsWith('node_modules')) return [];
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(`${dir}/${e.name}`) : /\.tsx?$/.test(e.name) ? [`${dir}/${e.name}`] : [],
  );
}

const STARTERS = new Set(['spawn', 'spawnSync', 'execFile', 'execFileSync', 'fork']);

/** The calls of a file that start tai (its CLI among their arguments) with no `env` option, and so hand it the caller's. */
function taiWithoutEnv(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && STARTERS.has(node.expression.text) && node.arguments.length > 1) {
      const tai = /\b(TAI_CLI|cli)\b/.test(node.arguments[1]!.getText(source));
      const withEnv = node.arguments.some((a) => ts.isObjectLiteralExpression(a) && a.properties.some((p) => p.name?.getText(source) === 'env'));
      if (tai && !withEnv) found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

afterEach(() => vi.unstubAllEnvs());

describe("the tests' environment", () => {
  it("is never built from the caller's process.env in a test file or helper", () => {
    const spreading = sources('test').filter((f) => /\.\.\.\s*\(?process\.env\b|env:\s*process\.env\b/.test(readFileSync(join(ROOT, f), 'utf8')));
    expect(spreading).toEqual([]);
  });

  it('starts tmux only through the one session harness (test/helpers/tmux-session.ts), whose server gets an explicit environment', () => {
    const own = sources('test').filter((f) => f !== 'test/helpers/tmux-session.ts' && /\b(execFileSync|spawnSync|spawn|execFile|execSync)\(\s*'tmux'/.test(readFileSync(join(ROOT, f), 'utf8')));
    expect(own).toEqual([]);
  });

  it("is given to every tai a test starts (a spawn with no env option inherits the caller's)", () => {
    expect(sources('test').flatMap(taiWithoutEnv)).toEqual([]);
  });

  it("gives a spawned process none of the caller's colour, terminal, prefix or cockpit settings", () => {
    for (const [k, v] of Object.entries({ NO_COLOR: '1', FORCE_COLOR: '0', COLORTERM: 'truecolor', TERM: 'dumb', TAI_PREFIX: 'C-a', TMUX: '/tmp/x,1,0', TAI_PLEXER_SOCKET: '/tmp/x.sock' })) vi.stubEnv(k, v);
    const seen = spawnSync(process.execPath, ['-e', 'process.stdout.write(JSON.stringify(process.env))'], { env: testEnv(), encoding: 'utf8' });
    const env = JSON.parse(seen.stdout) as Record<string, string>;
    expect(env).not.toHaveProperty('NO_COLOR');
    expect(env).not.toHaveProperty('FORCE_COLOR');
    expect(env).not.toHaveProperty('COLORTERM');
    expect(env).not.toHaveProperty('TAI_PREFIX');
    expect(env).not.toHaveProperty('TMUX');
    expect(env).not.toHaveProperty('TAI_PLEXER_SOCKET');
    expect(env['TERM']).toBe('xterm-256color');
    expect(env['HOME']).not.toBe(process.env['HOME']);
  });
});
