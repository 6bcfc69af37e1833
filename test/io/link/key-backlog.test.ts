/**
 * Keys for a main program that does not read are bounded (docs/security.md):
 * past KEYS_WAITING_MAX waiting they are dropped and the user is told, once
 * per stall; a real pty whose program never reads (sleep).
 */
import pty from 'node-pty';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { boundKeys, KEYS_WAITING_MAX } from '../../../src/io/link/key-backlog.js';
import { spawnMain, type MainPty } from '../../../src/io/cockpit/main/pty.js';
import { until } from '../../helpers/until.js';
import { ptyQueuedBytes, ptyWriter as directWrite } from '../../../src/io/cockpit/main/node-pty-internals.js';

// The bound reads node-pty's write queue (node-pty-internals.ts): on, whatever the caller's TAI_INTERNALS.
beforeAll(() => vi.stubEnv('TAI_INTERNALS', '1'));

const queuedBytes = (p: pty.IPty): number | undefined => ptyQueuedBytes(p)?.();

const spawned: pty.IPty[] = [];
afterEach(() => {
  for (const p of spawned.splice(0)) p.kill('SIGKILL');
});

const CHUNK = 'k'.repeat(65_536);

describe('keys waiting for the main program', () => {
  it('queues at most the bound for a program that never reads, and says once that keys are dropped', () => {
    const unbounded = pty.spawn('sleep', ['1000'], { cols: 80, rows: 24 });
    const bounded = pty.spawn('sleep', ['1000'], { cols: 80, rows: 24 });
    spawned.push(unbounded, bounded);
    const said: string[] = [];
    const write = boundKeys(directWrite(bounded), () => queuedBytes(bounded) ?? 0, (line) => said.push(line));
    const plain = directWrite(unbounded);
    for (let k = 0; k < 48; k++) {
      write(CHUNK);
      plain(CHUNK);
    }
    // Without the bound every key waits (what took a server to gigabytes); with it, at most the bound and a chunk.
    expect(queuedBytes(unbounded) ?? 0).toBeGreaterThan(2 * KEYS_WAITING_MAX);
    expect(queuedBytes(bounded) ?? 0).toBeLessThanOrEqual(KEYS_WAITING_MAX);
    expect(queuedBytes(bounded) ?? 0).toBeGreaterThan(KEYS_WAITING_MAX - 2 * CHUNK.length);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/^the main program is not reading its input: keys are dropped while \d+ bytes wait for it \(limit 1048576\)$/);
  });

  it('bounds them on node-pty\'s public API alone too (TAI_INTERNALS=0): keys written since the program last printed', async () => {
    vi.stubEnv('TAI_INTERNALS', '0');
    const said: string[] = [];
    const main: MainPty = spawnMain({ argv: ['sleep', '1000'], cols: 80, rows: 24, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, onKeysDropped: (line) => said.push(line) });
    try {
      let echoed = 0;
      main.onData((data) => (echoed += data.length));
      // The line discipline echoes what fits its buffer, then the program's silence is all there is.
      main.write('k');
      await until(() => echoed > 0);
      for (let k = 0; k < 48; k++) main.write(CHUNK);
      expect(said).toHaveLength(1);
      expect(said[0]).toMatch(/^the main program is not reading its input: keys are dropped while \d+ bytes wait for it \(limit 1048576\)$/);
    } finally {
      main.kill('SIGKILL');
      vi.stubEnv('TAI_INTERNALS', '1');
    }
  });

  it('passes keys again once the program has taken what waited, and says how many were dropped', () => {
    let waiting = 0;
    const written: string[] = [];
    const said: string[] = [];
    const write = boundKeys((d) => ((waiting += d.length), written.push(d)), () => waiting, (line) => said.push(line), 10);
    write('abcdef');
    write('ghijkl'); // 6 wait: 12 > 10, dropped
    write('mn');
    expect(written).toEqual(['abcdef', 'mn']);
    waiting = 0; // the program read it all
    write('op');
    expect(written).toEqual(['abcdef', 'mn', 'op']);
    expect(said).toEqual([
      'the main program is not reading its input: keys are dropped while 6 bytes wait for it (limit 10)',
      'the main program reads its input again; 6 characters typed meanwhile were dropped',
    ]);
  });

  it('never drops a key when nothing waits, however long it is (a paste the program reads)', () => {
    const written: string[] = [];
    const write = boundKeys((d) => written.push(d), () => 0, () => {}, 10);
    write('x'.repeat(100));
    expect(written).toEqual(['x'.repeat(100)]);
  });
});
