/**
 * The server's Node flags are taken by the Node that runs the tests: a flag
 * this Node does not know makes it refuse to start ("bad option", exit 9),
 * and the server would then quietly start again without any of them.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { SERVER_NODE_FLAGS } from '../../../src/io/cockpit/server-flags.js';

/** Live objects, and objects that live long enough to be promoted and then die (a streamed panel's lines): the old space's peak against what a collection leaves. */
const CHURN = `
  const v8 = require('node:v8');
  const old = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space');
  const live = []; for (let i = 0; i < 200000; i++) live.push({ i, s: 'live' + i });
  const ring = new Array(50000); let j = 0; let peak = 0;
  for (let round = 0; round < 600; round++) {
    for (let k = 0; k < 10000; k++) ring[j++ % ring.length] = { k, s: 'x' + j };
    peak = Math.max(peak, old().space_size);
  }
  gc();
  process.stdout.write(JSON.stringify({ peak, live: old().space_used_size, kept: live.length + ring.length }));`;

describe('SERVER_NODE_FLAGS', () => {
  it('are each known to this Node, which starts with all of them and exposes gc', () => {
    const run = spawnSync(process.execPath, [...SERVER_NODE_FLAGS, '-e', 'process.stdout.write(typeof gc)'], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('function');
  });

  it("hold V8's old space to about twice what its collections leave, where V8 alone lets it grow to four times", () => {
    const run = spawnSync(process.execPath, [...SERVER_NODE_FLAGS, '-e', CHURN], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    const { peak, live, kept } = JSON.parse(run.stdout) as Record<string, number>;
    expect(kept).toBe(250_000);
    // Bytes, not time: 3.3x the final live heap with the flags (2x what each collection left, the ring's promoted objects included), 6x without.
    expect(peak).toBeLessThan(4 * live);
  });
});
