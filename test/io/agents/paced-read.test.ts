import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { getDefaultHighWaterMark, Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { pacedData, pacedWebStream, pacerTicks, withPacedPipes } from '../../../src/io/agents/paced-read.js';

/** A child that writes `lines` numbered lines, one write every `gapMs`. */
function chatty(lines: number, gapMs: number) {
  const script = `let i = 0; const t = setInterval(() => { process.stdout.write('line ' + i + '\\n'); if (++i === ${lines}) { clearInterval(t); } }, ${gapMs});`;
  return withPacedPipes(() => spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'ignore'] }));
}

const expected = (lines: number) => Array.from({ length: lines }, (_, i) => `line ${i}\n`).join('');

describe('paced pipes', () => {
  it('hand over everything a chatty child wrote, whole and in order, at most one piece per pacer tick', async () => {
    const child = chatty(60, 5);
    const chunks: string[] = [];
    const before = pacerTicks();
    child.stdout.setEncoding('utf8');
    pacedData<string>(child.stdout, (c) => chunks.push(c));
    await once(child.stdout, 'end');
    expect(chunks.join('')).toBe(expected(60));
    // A count, not a timing: every piece is handed over at a tick. How few pieces 60 writes
    // become depends on the scheduler: `npm run bench -- paced` measures it.
    expect(chunks.length).toBeLessThanOrEqual(pacerTicks() - before);
  });

  it('restore the default high-water mark for streams made after the spawn', () => {
    const before = getDefaultHighWaterMark(false);
    const child = chatty(1, 1);
    expect(child.stdout.readableHighWaterMark).toBe(1);
    expect(getDefaultHighWaterMark(false)).toBe(before);
    child.kill();
  });

  it('feed a web stream that ends when the child closes its output', async () => {
    const child = chatty(20, 2);
    const reader = pacedWebStream(child.stdout).getReader();
    const decoder = new TextDecoder();
    let text = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    expect(text).toBe(expected(20));
  });

  it('let a reader cancel the web stream without an error from the closing pipe', async () => {
    const child = chatty(1000, 1);
    const stream = pacedWebStream(child.stdout);
    const reader = stream.getReader();
    await reader.read();
    await reader.cancel();
    await once(child.stdout, 'close');
    expect(child.stdout.destroyed).toBe(true);
    child.kill();
  });
});

describe('a flooding child', () => {
  it('is read whole through a pipe that fills at once', async () => {
    // 1 MiB in one go: the pipe fills at once and the child waits for reads. How many
    // pacer ticks a real pipe's flood costs depends on the scheduler (a read that comes
    // back small ends the flood): `npm run bench -- paced` measures it; the rule is below.
    const script = `process.stdout.write('x'.repeat(1 << 20), () => process.exit(0));`;
    const child = withPacedPipes(() => spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'ignore'] }));
    let got = 0;
    pacedData<Buffer>(child.stdout, (c) => (got += c.length));
    await once(child.stdout, 'end');
    expect(got).toBe(1 << 20);
  });
});

/**
 * The pacer's rules on a stream the test feeds, with the pacer's timer on the
 * fake clock: what waits between ticks is then known, and every count below
 * is exact. A fresh copy of the module each time, so no tick asked by an
 * earlier test's pipe is pending.
 */
describe('the pacer', () => {
  let paced: typeof import('../../../src/io/agents/paced-read.js');
  const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
  /** A stream in paused mode holding what was pushed, as a paced pipe holds what the kernel kept. */
  const fed = (): Readable => new Readable({ highWaterMark: 1, read() {} });

  beforeEach(async () => {
    vi.resetModules();
    paced = await import('../../../src/io/agents/paced-read.js');
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('hands over what came between two ticks in one piece, at the tick', async () => {
    const stream = fed();
    const pieces: string[] = [];
    paced.pacedData<Buffer>(stream, (c) => pieces.push(c.toString()));
    for (let i = 0; i < 60; i++) stream.push(`line ${i}\n`);
    await turn();
    vi.advanceTimersByTime(paced.PACE_MS - 1);
    expect(pieces).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(pieces).toEqual([expected(60)]);
    expect(paced.pacerTicks()).toBe(1);
  });

  it('follows a flood at once, without a tick, until a read comes back small', async () => {
    const stream = fed();
    const sizes: number[] = [];
    paced.pacedData<Buffer>(stream, (c) => sizes.push(c.length));
    stream.push(Buffer.alloc(paced.FLOOD_START_BYTES));
    await turn();
    vi.advanceTimersByTime(paced.PACE_MS);
    expect([sizes, paced.pacerTicks()]).toEqual([[paced.FLOOD_START_BYTES], 1]);
    // Flooding: each read follows the last at once, while one comes back large enough.
    for (const size of [64 * 1024, 64 * 1024, paced.FLOOD_END_BYTES]) {
      stream.push(Buffer.alloc(size));
      await turn();
      await turn();
    }
    expect([sizes, paced.pacerTicks()]).toEqual([[paced.FLOOD_START_BYTES, 64 * 1024, 64 * 1024, paced.FLOOD_END_BYTES], 1]);
    // The read that comes back small is still handed over at once, and ends the flood:
    // the next data waits for the next tick.
    stream.push(Buffer.alloc(paced.FLOOD_END_BYTES - 1));
    await turn();
    await turn();
    expect([sizes.at(-1), paced.pacerTicks()]).toEqual([paced.FLOOD_END_BYTES - 1, 1]);
    stream.push(Buffer.alloc(10));
    await turn();
    await turn();
    expect(sizes).toHaveLength(5);
    vi.advanceTimersByTime(paced.PACE_MS);
    expect([sizes.slice(5), paced.pacerTicks()]).toEqual([[10], 2]);
  });
});

describe('a child that writes and exits at once', () => {
  it('is read whole even when nothing else keeps the reading process alive', async () => {
    const reader = spawn(process.execPath, [fileURLToPath(new URL('../../fixtures/paced-reader.mjs', import.meta.url))], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    reader.stdout.on('data', (c: Buffer) => (out += c.toString()));
    await once(reader, 'close');
    expect(out).toBe(`got ${JSON.stringify(expected(3))}\n`);
  });
});
