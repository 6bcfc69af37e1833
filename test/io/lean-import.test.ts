import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { leanImport } from '../../src/io/lean-import.js';
import { testEnv } from '../helpers/test-env.js';

// What these tests guard needs Node's fetch and require.cache (node-internals.ts), here and in the child: on, whatever the caller's TAI_INTERNALS.
beforeAll(() => vi.stubEnv('TAI_INTERNALS', '1'));
afterAll(() => vi.unstubAllEnvs());

const DIST = fileURLToPath(new URL('../../dist/src/', import.meta.url));
/** The yoga-layout whose loader `leanImport` keeps from fetch (pinned in package.json's overrides). */
const YOGA = (JSON.parse(readFileSync(new URL('../../node_modules/yoga-layout/package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** What a fresh node from the build kept after loading the drawn cockpit's modules (Ink, React, yoga). */
interface Kept {
  readonly undici: boolean;
  readonly fetch: string;
  /** Files in require.cache that never ran. */
  readonly unloaded: readonly string[];
  readonly reconciler: boolean;
}

function loadCockpitInNode(lean: boolean): Kept {
  const script = `
    import { createRequire } from 'node:module';
    const load = () => import(${JSON.stringify(`${DIST}io/cockpit/cockpit-main.js`)});
    const { leanImport } = await import(${JSON.stringify(`${DIST}io/lean-import.js`)});
    await (${lean} ? leanImport(load) : load());
    const require = createRequire(import.meta.url);
    const cache = Object.values(require.cache);
    process.stdout.write(JSON.stringify({
      undici: process.moduleLoadList.some((m) => m.includes('undici')),
      fetch: typeof fetch,
      unloaded: cache.filter((m) => !m.loaded).map((m) => m.filename.replace(/.*node_modules./, '')),
      reconciler: typeof require('react-reconciler') === 'function',
    }));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', cwd: DIST, env: testEnv({ NODE_ENV: 'production' }) });
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as Kept;
}

describe('loading the drawn cockpit lean', () => {
  it('hides the global fetch while the modules load and puts the same one back', async () => {
    const before = globalThis.fetch;
    let seen: unknown = 'not run';
    const value = await leanImport(async () => {
      seen = typeof globalThis.fetch;
      return 42;
    });
    expect(value).toBe(42);
    expect(seen).toBe('undefined');
    expect(globalThis.fetch).toBe(before);
  });

  it('puts fetch back when the load fails, and the failure reaches the caller', async () => {
    const before = globalThis.fetch;
    await expect(leanImport(() => Promise.reject(new Error('no such module')))).rejects.toThrow('no such module');
    expect(globalThis.fetch).toBe(before);
  });

  it('keeps neither undici nor the CommonJS files that never ran, and what did run still works', () => {
    // The control: yoga-layout's loader calls fetch (Node's loads undici), and Node reads React's development builds.
    const plain = loadCockpitInNode(false);
    const moved = `on yoga-layout ${YOGA}, react-reconciler and Node ${process.version}: what src/io/lean-import.ts works around has moved`;
    expect(plain.undici, `${moved} (yoga's loader no longer loads undici through fetch)`).toBe(true);
    expect(plain.unloaded, `${moved} (Node no longer keeps React's development build unrun)`).toContain('react-reconciler/cjs/react-reconciler.development.js');
    expect(loadCockpitInNode(true), moved).toEqual({ undici: false, fetch: 'function', unloaded: [], reconciler: true });
  });
});
