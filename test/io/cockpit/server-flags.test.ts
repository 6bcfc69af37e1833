/**
 * The server's Node flags are taken by the Node that runs the tests: a flag
 * this Node does not know makes it refuse to start ("bad option", exit 9),
 * and the server would then quietly start again without any of them.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { SERVER_NODE_FLAGS, serverFlags } from '../../../src/io/cockpit/server-flags.js';

/** Who to blame when this fails: the Node that runs the tests took a flag differently. */
const NODE = `Node ${process.version}`;

describe('SERVER_NODE_FLAGS', () => {
  it('are each known to this Node, which starts with all of them and exposes gc', () => {
    const run = spawnSync(process.execPath, [...SERVER_NODE_FLAGS, '-e', 'process.stdout.write(typeof gc)'], { encoding: 'utf8' });
    expect(run.stderr, NODE).toBe('');
    expect(run.status, NODE).toBe(0);
    expect(run.stdout, NODE).toBe('function');
  });

  // V8 sizes the old space's growth by the heap's limit; how far it grows depends on timing (concurrent marking), so the
  // hour's soak measures the effect (docs/performance.md, "Optimisations that stay") and this checks the cause.
  it("set V8's heap limit under 2 GiB, where the old space grows to at most twice what a collection left", () => {
    const run = spawnSync(process.execPath, [...SERVER_NODE_FLAGS, '-p', "require('node:v8').getHeapStatistics().heap_size_limit"], { encoding: 'utf8' });
    expect(run.stderr, NODE).toBe('');
    const limit = Number(run.stdout);
    const plain = Number(spawnSync(process.execPath, ['-p', "require('node:v8').getHeapStatistics().heap_size_limit"], { encoding: 'utf8' }).stdout);
    expect(limit, NODE).toBeGreaterThan(1024 * 2 ** 20);
    expect(limit, NODE).toBeLessThan(2.25 * 2 ** 30);
    expect(limit, NODE).toBeLessThan(plain);
  });

  it("leave V8's own flags out with the internals switched off, and every flag with TAI_SERVER_FLAGS=0", () => {
    expect(serverFlags({})).toEqual(SERVER_NODE_FLAGS);
    expect(serverFlags({ TAI_INTERNALS: '0' })).not.toContain('--no-memory-reducer');
    expect(serverFlags({ TAI_INTERNALS: '0' })).toContain('--max-old-space-size=2047');
    expect(serverFlags({ TAI_SERVER_FLAGS: '0' })).toEqual([]);
  });
});
