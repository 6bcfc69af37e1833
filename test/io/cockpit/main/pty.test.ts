import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pty, { type IPty } from 'node-pty';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { directRead, directWrite, spawnMain } from '../../../../src/io/cockpit/main/pty.js';

const dir = mkdtempSync(join(tmpdir(), 'tai-pty-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the main pane pty', () => {
  it('writes a key in the caller\'s turn, not on the thread pool, and the program gets it', async () => {
    const p = pty.spawn('cat', [], { cols: 40, rows: 5 });
    const queue = (p as unknown as { _writeStream: { _writeQueue: unknown[] } })._writeStream._writeQueue;
    let seen = '';
    p.onData((d) => (seen += d));
    directWrite(p)('k');
    expect(queue).toHaveLength(0); // node-pty's own write would still hold it, waiting for fs.write
    await vi.waitFor(() => expect(seen).toContain('k'), { timeout: 5_000 });
    const exited = new Promise((r) => p.onExit(r));
    p.kill('SIGKILL');
    await exited;
  });

  it('writes a key from its string, without making a Buffer for it', async () => {
    const p = pty.spawn('cat', [], { cols: 40, rows: 5 });
    let seen = '';
    p.onData((d) => (seen += d));
    const write = directWrite(p);
    const from = vi.spyOn(Buffer, 'from');
    write('é');
    expect(from).not.toHaveBeenCalled();
    from.mockRestore();
    await vi.waitFor(() => expect(seen).toContain('é'), { timeout: 5_000 });
    const exited = new Promise((r) => p.onExit(r));
    p.kill('SIGKILL');
    await exited;
  });

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

  it('writes nothing once the pty is closed, not even into the file that took its fd number', async () => {
    const p = pty.spawn('sh', ['-c', 'exit 0'], { cols: 40, rows: 5 });
    const inner = p as unknown as { fd: number; _writable: boolean };
    const fd = inner.fd;
    const write = directWrite(p);
    await new Promise((r) => p.onExit(r));
    await vi.waitFor(() => expect(inner._writable).toBe(false), { timeout: 5_000 });
    // Files take the lowest free numbers: open until one gets the pty's old number.
    const opened: number[] = [];
    const path = join(dir, 'reused');
    try {
      while (opened.length < 256 && !opened.includes(fd)) opened.push(openSync(path, 'w'));
      expect(opened).toContain(fd);
      write('typed after the exit');
      expect(readFileSync(path, 'utf8')).toBe('');
    } finally {
      for (const f of opened) closeSync(f);
    }
  });

  it("reads the program's output straight from the pty, not through node-pty's stream and emitter, UTF-8 whole", async () => {
    const p = pty.spawn('sh', ['-c', "printf 'é € 😀 done'; exec cat"], { cols: 40, rows: 5 });
    const fire = vi.spyOn((p as unknown as { _onData: { fire: (d: string) => void } })._onData, 'fire');
    let seen = '';
    directRead(p)((d) => (seen += d));
    await vi.waitFor(() => expect(seen).toContain('done'), { timeout: 5_000 });
    expect(seen).toBe('é € 😀 done');
    expect(fire).not.toHaveBeenCalled(); // node-pty's own path would have carried it
    const exited = new Promise((r) => p.onExit(r));
    p.kill('SIGKILL');
    await exited;
  });

  it('still reports the program\'s end, after every byte it wrote, when the output is read straight', async () => {
    const lines = Array.from({ length: 2000 }, (_, i) => `line ${i}`).join('\n');
    const p = spawnMain({ argv: ['sh', '-c', `printf '%s\\n' '${lines}'; exit 3`], cols: 40, rows: 5 });
    let seen = '';
    p.onData((d) => (seen += d));
    expect(await p.exited).toEqual({ code: 3 });
    expect(seen).toContain('line 1999');
    expect(seen.split('\r\n').filter((l) => l.startsWith('line ')).length).toBe(2000);
  });

  it('reads through node-pty when Node\'s socket has no onread to give', () => {
    const onData = vi.fn();
    directRead({ onData, _socket: { _handle: {} } } as unknown as IPty)(() => {});
    expect(onData).toHaveBeenCalledOnce();
  });

  it('writes through node-pty when its fd or its queue is not there', () => {
    const write = vi.fn();
    directWrite({ write } as unknown as IPty)('abc');
    expect(write).toHaveBeenCalledWith('abc');
  });
});
