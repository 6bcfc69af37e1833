import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { getDefaultHighWaterMark } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { pacedData, pacedWebStream, pacerTicks, PACE_MS, withPacedPipes } from '../../../src/io/agents/paced-read.js';

/** A child that writes `lines` numbered lines, one write every `gapMs`. */
function chatty(lines: number, gapMs: number) {
  const script = `let i = 0; const t = setInterval(() => { process.stdout.write('line ' + i + '\\n'); if (++i === ${lines}) { clearInterval(t); } }, ${gapMs});`;
  return withPacedPipes(() => spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'ignore'] }));
}

const expected = (lines: number) => Array.from({ length: lines }, (_, i) => `line ${i}\n`).join('');

describe('paced pipes', () => {
  it('hand over everything a chatty child wrote, in order, in far fewer pieces than it wrote', async () => {
    const child = chatty(60, 5);
    const chunks: string[] = [];
    child.stdout.setEncoding('utf8');
    pacedData<string>(child.stdout, (c) => chunks.push(c));
    await once(child.stdout, 'end');
    expect(chunks.join('')).toBe(expected(60));
    // 60 writes over ~300 ms come in about one piece per PACE_MS tick, however the scheduler groups them.
    expect(chunks.length).toBeLessThan(60 / 3);
    expect(PACE_MS).toBeGreaterThanOrEqual(25);
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
  it('is read as fast as it writes, not 64 KiB per pacer tick', async () => {
    // 1 MiB in one go: the pipe fills at once and the child waits for reads.
    const script = `process.stdout.write('x'.repeat(1 << 20), () => process.exit(0));`;
    const child = withPacedPipes(() => spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'ignore'] }));
    const before = pacerTicks();
    let got = 0;
    pacedData<Buffer>(child.stdout, (c) => (got += c.length));
    await once(child.stdout, 'end');
    expect(got).toBe(1 << 20);
    // Paced alone, 1 MiB through a 64 KiB pipe takes 16 ticks at least; a read that
    // comes back small under load costs one tick before the flood is followed again.
    expect(pacerTicks() - before).toBeLessThan(8);
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
