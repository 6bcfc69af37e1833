import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { randomHex, sha256Hex } from '../../src/io/crypto-lazy.js';
import { testEnv } from '../helpers/test-env.js';

const DIST = fileURLToPath(new URL('../../dist/src/', import.meta.url));

describe('node:crypto loaded on first use', () => {
  it('gives random hex of the asked length and the SHA-256 node:crypto gives', () => {
    const a = randomHex(4);
    expect(a).toMatch(/^[0-9a-f]{8}$/);
    expect(new Set(Array.from({ length: 20 }, () => randomHex(4))).size).toBeGreaterThan(1);
    expect(sha256Hex('repo\0main')).toBe(createHash('sha256').update('repo\0main').digest('hex'));
  });

  it("is not loaded by the server's agents, lanes, records and drawn cockpit until an id is made", () => {
    const script = `
      const has = () => process.moduleLoadList.includes('NativeModule crypto');
      await import(${JSON.stringify(`${DIST}io/agents/open-agent-service.js`)});
      const { leanImport } = await import(${JSON.stringify(`${DIST}io/lean-import.js`)});
      await leanImport(() => import(${JSON.stringify(`${DIST}io/cockpit/cockpit-main.js`)})); // as the server loads it
      const before = has();
      const { randomHex } = await import(${JSON.stringify(`${DIST}io/crypto-lazy.js`)});
      randomHex(4);
      process.stdout.write(JSON.stringify({ before, after: has() }));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', cwd: DIST, env: testEnv({ NODE_ENV: 'production' }) });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ before: false, after: true });
  });
});
