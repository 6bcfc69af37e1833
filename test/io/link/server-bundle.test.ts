/**
 * The cockpit's server runs as one bundle built after tsc (docs/performance.md,
 * "Optimisations that stay"): what the bundle holds, which script the
 * launcher picks, and a cockpit started by the real CLI on a real pty running it.
 * Needs `npm run build` (tsc and the bundle).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pty from 'node-pty';
import { afterAll, describe, expect, it } from 'vitest';
import { runningCockpits } from '../../../src/io/link/link-place.js';
import { serverScript } from '../../../src/io/link/server-launch.js';
import { endCockpits } from '../../helpers/cockpit-servers.js';
import { TAI_CLI } from '../../helpers/tai-cli.js';
import { testEnv } from '../../helpers/test-env.js';
import { until } from '../../helpers/until.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const BUNDLE_DIR = join(ROOT, 'dist/server');
const dir = mkdtempSync(join(tmpdir(), 'tai-bundle-'));

/** Every chunk of the bundle, as text. */
const chunks = (): string[] => readdirSync(BUNDLE_DIR).filter((f) => f.endsWith('.js')).map((f) => readFileSync(join(BUNDLE_DIR, f), 'utf8'));
/** The bundled modules' files, from the comment rolldown puts above each. */
const bundledFiles = (): string[] => chunks().flatMap((text) => [...text.matchAll(/^\/\/ (\S+\.m?[jc]s)$/gm)].map((m) => m[1] ?? ''));

afterAll(async () => {
  await endCockpits({ XDG_STATE_HOME: join(dir, 'state'), XDG_RUNTIME_DIR: join(dir, 'run') });
  rmSync(dir, { recursive: true, force: true });
});

describe("the server's bundle", () => {
  it('imports no package but the native addons: everything else is inside it', () => {
    const imports = /^(?:import|export)\b[^\n]*?\bfrom "([^"]+)"|\bimport\("([^"]+)"\)|\b__require\("([^"]+)"\)/gm;
    const named = chunks().flatMap((text) => [...text.matchAll(imports)].map((m) => m[1] ?? m[2] ?? m[3] ?? ''));
    const packages = [...new Set(named)].filter((s) => !s.startsWith('.') && !s.startsWith('node:') && !builtinModules.includes(s)).sort();
    // Ink's devtools are imported only when DEV=true, and tai does not ship them; ws tries its two optional addons.
    expect(packages).toEqual(['better-sqlite3', 'bufferutil', 'node-pty', 'react-devtools-core', 'utf-8-validate']);
  });

  it("holds of es-toolkit only the throttle and debounce Ink uses, not its compat's hundreds of modules", () => {
    const toolkit = bundledFiles().filter((f) => f.includes('/es-toolkit/')).map((f) => f.slice(f.indexOf('/es-toolkit/') + 1));
    expect(toolkit.sort()).toEqual(['es-toolkit/dist/compat/function/debounce.mjs', 'es-toolkit/dist/compat/function/throttle.mjs', 'es-toolkit/dist/function/debounce.mjs']);
  });

  it('is ASCII only, so that V8 holds each source in one byte a character, not two', () => {
    const wide = readdirSync(BUNDLE_DIR)
      .filter((f) => f.endsWith('.js'))
      .map((f) => ({ chunk: f, bytes: [...readFileSync(join(BUNDLE_DIR, f))].filter((b) => b > 0x7f).length }))
      .filter((c) => c.bytes > 0);
    expect(wide).toEqual([]);
  });

  it("holds React's production builds and none of its development builds", () => {
    const files = bundledFiles();
    expect(files.filter((f) => f.endsWith('.development.js'))).toEqual([]);
    expect(files.some((f) => f.endsWith('react-reconciler.production.js'))).toBe(true);
  });
});

describe('the script a server runs', () => {
  const scripts = { bundle: join(dir, 'bundle.js'), cli: join(dir, 'cli.js') };
  const picked = (env: NodeJS.ProcessEnv): { script: string; said: string[] } => {
    const said: string[] = [];
    return { script: serverScript(env, (line) => said.push(line), scripts), said };
  };

  it('is the bundle when it was built after cli.js, and cli.js with TAI_SERVER_BUNDLE=0', () => {
    writeFileSync(scripts.cli, '');
    writeFileSync(scripts.bundle, '');
    utimesSync(scripts.cli, 1000, 1000);
    utimesSync(scripts.bundle, 2000, 2000);
    expect(picked({})).toEqual({ script: scripts.bundle, said: [] });
    expect(picked({ TAI_SERVER_BUNDLE: '0' })).toEqual({ script: scripts.cli, said: [] });
  });

  it('is cli.js, said in the log, when the bundle is older than cli.js (tsc alone ran) or missing', () => {
    writeFileSync(scripts.cli, '');
    writeFileSync(scripts.bundle, '');
    utimesSync(scripts.bundle, 1000, 1000);
    utimesSync(scripts.cli, 2000, 2000);
    const stale = picked({});
    expect(stale.script).toBe(scripts.cli);
    expect(stale.said).toEqual([`tai: the server's bundle is older than dist/src; running ${scripts.cli} instead (npm run build makes it)`]);
    rmSync(scripts.bundle);
    expect(picked({}).said).toEqual([`tai: the server's bundle is missing; running ${scripts.cli} instead (npm run build makes it)`]);
  });

  it('is the bundle for a cockpit started by the built CLI on a terminal, and that cockpit draws its agents', async () => {
    const env = testEnv({ XDG_STATE_HOME: join(dir, 'state'), XDG_RUNTIME_DIR: join(dir, 'run'), NO_COLOR: undefined, TAI_NATIVE_CLIENT: '0' });
    const name = `bundle-${process.pid}`;
    const term = pty.spawn(process.execPath, [TAI_CLI, 'demo', '-s', name, '--agents', 'silent', '--', 'sleep', '60'], { cols: 120, rows: 30, env });
    let screen = '';
    term.onData((d) => (screen += d));
    try {
      await until(() => runningCockpits(env).some((c) => c.name === name), { what: `the cockpit ${name}'s card`, timeout: 20_000 });
      const card = runningCockpits(env).find((c) => c.name === name);
      const argv = readFileSync(`/proc/${card?.pid}/cmdline`, 'utf8').split('\0');
      expect(argv).toContain(join(BUNDLE_DIR, 'cli.js'));
      expect(argv).toContain('__server');
      await until(() => screen.includes('demo silent'), { what: "the agent's panel", timeout: 20_000, explain: () => screen.slice(-2000) });
    } finally {
      await endCockpits(env);
      term.kill();
    }
  }, 60_000);
});
