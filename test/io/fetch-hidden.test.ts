import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { withoutFetch } from '../../src/io/fetch-hidden.js';

const DIST = fileURLToPath(new URL('../../dist/src/', import.meta.url));

/** Loads the drawn cockpit's modules (Ink, yoga) in a fresh node from the build; says what it saw. */
function loadCockpitInNode(hidden: boolean): { undici: boolean; fetch: string } {
  const script = `
    const load = () => import(${JSON.stringify(`${DIST}io/cockpit/cockpit-main.js`)});
    const { withoutFetch } = await import(${JSON.stringify(`${DIST}io/fetch-hidden.js`)});
    await (${hidden} ? withoutFetch(load) : load());
    const undici = process.moduleLoadList.some((m) => m.includes('undici'));
    process.stdout.write(JSON.stringify({ undici, fetch: typeof fetch }));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: { ...process.env, NODE_ENV: 'production' } });
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as { undici: boolean; fetch: string };
}

describe('loading Ink without fetch', () => {
  it('hides the global fetch while the modules load and puts the same one back', async () => {
    const before = globalThis.fetch;
    let seen: unknown = 'not run';
    const value = await withoutFetch(async () => {
      seen = typeof globalThis.fetch;
      return 42;
    });
    expect(value).toBe(42);
    expect(seen).toBe('undefined');
    expect(globalThis.fetch).toBe(before);
  });

  it('puts fetch back when the load fails, and the failure reaches the caller', async () => {
    const before = globalThis.fetch;
    await expect(withoutFetch(() => Promise.reject(new Error('no such module')))).rejects.toThrow('no such module');
    expect(globalThis.fetch).toBe(before);
  });

  it('keeps undici out of a process that loads the drawn cockpit, which yoga would load through fetch', () => {
    // The control: yoga-layout's loader calls fetch, and Node's fetch loads undici (with http, tls, http2, zlib).
    expect(loadCockpitInNode(false).undici).toBe(true);
    expect(loadCockpitInNode(true)).toEqual({ undici: false, fetch: 'function' });
  });
});
