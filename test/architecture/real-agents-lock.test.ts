/**
 * The real agent CLIs are pinned by their own lock file (.ci/run installs from it): an emptied or stale lock
 * would let CI test other versions than the ones named, silently.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const DIR = fileURLToPath(new URL('../real-agents/', import.meta.url));
const read = (name: string): Record<string, unknown> => JSON.parse(readFileSync(DIR + name, 'utf8')) as Record<string, unknown>;

describe('test/real-agents/package-lock.json', () => {
  it('locks every agent CLI at the exact version package.json names', () => {
    const wanted = read('package.json').dependencies as Record<string, string>;
    const locked = read('package-lock.json').packages as Record<string, { version?: string }>;
    expect(Object.keys(wanted).length).toBeGreaterThan(0);
    for (const [name, version] of Object.entries(wanted)) expect(locked[`node_modules/${name}`]?.version, name).toBe(version);
  });
});
