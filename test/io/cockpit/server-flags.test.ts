/**
 * The server's Node flags are taken by the Node that runs the tests: a flag
 * this Node does not know makes it refuse to start ("bad option", exit 9),
 * and the server would then quietly start again without any of them.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { SERVER_NODE_FLAGS } from '../../../src/io/cockpit/server-flags.js';

describe('SERVER_NODE_FLAGS', () => {
  it('are each known to this Node, which starts with all of them and exposes gc', () => {
    const run = spawnSync(process.execPath, [...SERVER_NODE_FLAGS, '-e', 'process.stdout.write(typeof gc)'], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('function');
  });
});
