import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { spawnMain } from '../../../../src/io/cockpit/main/pty.js';

const dir = mkdtempSync(join(tmpdir(), 'tai-pty-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the main pane pty', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('delivers writes larger than the pty takes at once whole and in order, behind what node-pty still holds', async () => {
    // Raw mode: no line limit, no echo; the program copies exactly what it reads to a file.
    const out = join(dir, 'copy');
    const size = 3 * 65_536;
    const p = spawnMain({ argv: ['sh', '-c', `stty raw -echo; echo ready; head -c ${2 * size} > ${out}; echo done`], cols: 40, rows: 5 });
    let seen = '';
    p.onData((d) => (seen += d));
    await vi.waitFor(() => expect(seen).toContain('ready'), { timeout: 5_000 });
    const first = Array.from({ length: size }, (_, i) => String.fromCharCode(97 + (i % 26))).join('');
    const second = Array.from({ length: size }, (_, i) => String.fromCharCode(65 + (i % 26))).join('');
    p.write(first); // more than the pty's buffer: the rest waits in node-pty's queue
    p.write(second); // so this one must queue behind it, not jump ahead
    await vi.waitFor(() => expect(seen).toContain('done'), { timeout: 15_000 });
    expect(readFileSync(out, 'utf8')).toBe(first + second);
    await p.exited;
  });

  it('still reports the program\'s end, after every byte it wrote, when the output is read straight', async () => {
    // node-pty's own read takes the hang-up after a short read for the end and may lose the last bytes: the
    // straight read (node-pty-internals.ts) reads them before the end.
    vi.stubEnv('TAI_INTERNALS', '1');
    const lines = Array.from({ length: 2000 }, (_, i) => `line ${i}`).join('\n');
    const p = spawnMain({ argv: ['sh', '-c', `printf '%s\\n' '${lines}'; exit 3`], cols: 40, rows: 5 });
    let seen = '';
    p.onData((d) => (seen += d));
    expect(await p.exited).toEqual({ code: 3 });
    expect(seen).toContain('line 1999');
    expect(seen.split('\r\n').filter((l) => l.startsWith('line ')).length).toBe(2000);
  });

  it("counts a key's bytes once, in the writer, when node-pty's queue is seen (the bound reads the queue, not a count)", async () => {
    vi.stubEnv('TAI_INTERNALS', '1');
    const p = spawnMain({ argv: ['cat'], cols: 40, rows: 5 });
    let seen = '';
    p.onData((d) => (seen += d));
    const lengths = vi.spyOn(Buffer, 'byteLength');
    try {
      p.write('k');
      expect(lengths).toHaveBeenCalledTimes(1); // the writer's: was the whole key written
      await vi.waitFor(() => expect(seen).toBe('k'), { timeout: 5_000 });
    } finally {
      lengths.mockRestore();
      p.kill('SIGKILL');
      await p.exited;
    }
  });
});
