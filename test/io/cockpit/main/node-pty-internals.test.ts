import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import pty, { type IPty } from 'node-pty';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { missingInternals, ptyReader, ptyWriter } from '../../../../src/io/cockpit/main/node-pty-internals.js';

const dir = mkdtempSync(join(tmpdir(), 'tai-pty-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The installed node-pty's version, for the canary's message. */
const VERSION = (JSON.parse(readFileSync(new URL('../../../../node_modules/node-pty/package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** A running `cat` in a pty, and how to end it. */
async function withCat(fn: (p: IPty) => void | Promise<void>): Promise<void> {
  const p = pty.spawn('cat', [], { cols: 40, rows: 5 });
  try {
    await fn(p);
  } finally {
    const exited = new Promise((r) => p.onExit(r));
    p.kill('SIGKILL');
    await exited;
  }
}

describe('node-pty internals (the canary)', () => {
  beforeEach(() => vi.stubEnv('TAI_INTERNALS', '1'));
  afterEach(() => vi.unstubAllEnvs());

  it('finds every internal tai reads in the installed node-pty, or names the version that moved them', async () => {
    await withCat((p) => {
      const missing = missingInternals(p);
      expect(missing, `${missing.map((name) => `${name.includes("net.Socket's") ? `Node ${process.version} (or node-pty ${VERSION}'s _socket)` : `node-pty ${VERSION}`} no longer has ${name}`).join('; ')}: src/io/cockpit/main/node-pty-internals.ts needs updating (TAI_INTERNALS=0 works around it meanwhile)`).toEqual([]);
    });
  });

  it('says which internal is gone when node-pty changes shape', async () => {
    await withCat((p) => {
      delete (p as unknown as { _writeStream?: unknown })._writeStream;
      expect(missingInternals(p)).toEqual(['UnixTerminal._writeStream._writeQueue']);
    });
  });
});

describe('the pty written and read through the internals (node-pty-internals.ts)', () => {
  beforeEach(() => vi.stubEnv('TAI_INTERNALS', '1'));
  afterEach(() => vi.unstubAllEnvs());

  it('writes a key in the caller\'s turn, not on the thread pool, and the program gets it', async () => {
    const p = pty.spawn('cat', [], { cols: 40, rows: 5 });
    const queue = (p as unknown as { _writeStream: { _writeQueue: unknown[] } })._writeStream._writeQueue;
    let seen = '';
    p.onData((d) => (seen += d));
    ptyWriter(p)('k');
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
    const write = ptyWriter(p);
    const from = vi.spyOn(Buffer, 'from');
    write('é');
    expect(from).not.toHaveBeenCalled();
    from.mockRestore();
    await vi.waitFor(() => expect(seen).toContain('é'), { timeout: 5_000 });
    const exited = new Promise((r) => p.onExit(r));
    p.kill('SIGKILL');
    await exited;
  });

  it('writes nothing once the pty is closed, not even into the file that took its fd number', async () => {
    const p = pty.spawn('sh', ['-c', 'exit 0'], { cols: 40, rows: 5 });
    const inner = p as unknown as { fd: number; _writable: boolean };
    const fd = inner.fd;
    const write = ptyWriter(p);
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
    ptyReader(p)((d) => (seen += d));
    await vi.waitFor(() => expect(seen).toContain('done'), { timeout: 5_000 });
    expect(seen).toBe('é € 😀 done');
    expect(fire).not.toHaveBeenCalled(); // node-pty's own path would have carried it
    const exited = new Promise((r) => p.onExit(r));
    p.kill('SIGKILL');
    await exited;
  });

  it("decodes a key's echo without the string decoder", async () => {
    await withCat(async (p) => {
      const write = vi.spyOn(StringDecoder.prototype, 'write');
      let seen = '';
      ptyReader(p)((d) => (seen += d));
      ptyWriter(p)('x');
      await vi.waitFor(() => expect(seen).toBe('x'), { timeout: 5_000 });
      expect(write).not.toHaveBeenCalled();
      write.mockRestore();
    });
  });

  it("takes a one-byte echo's character as it is: no call into Buffer's decoder; a longer read is decoded", async () => {
    await withCat(async (p) => {
      const decode = vi.spyOn(Buffer.prototype, 'toString');
      let seen = '';
      ptyReader(p)((d) => (seen += d));
      ptyWriter(p)('x'); // cat's terminal echoes it: one byte
      await vi.waitFor(() => expect(seen).toBe('x'), { timeout: 5_000 });
      expect(decode).not.toHaveBeenCalled();
      ptyWriter(p)('\x01'); // echoed as ^A: two bytes in one read
      await vi.waitFor(() => expect(seen).toBe('x^A'), { timeout: 5_000 });
      expect(decode).toHaveBeenCalled();
      decode.mockRestore();
    });
  });

  it('decodes a character cut between two reads whole', async () => {
    // The shell's pause cuts é between two reads: the first ends in its lead byte, the second begins with the rest.
    const p = pty.spawn('sh', ['-c', "printf 'ab'; sleep 0.2; printf '\\303'; sleep 0.2; printf '\\251 cd'; sleep 0.2; printf ' done'; exec cat"], { cols: 40, rows: 5 });
    const write = vi.spyOn(StringDecoder.prototype, 'write');
    const reads: string[] = [];
    ptyReader(p)((d) => reads.push(d));
    await vi.waitFor(() => expect(reads.join('')).toContain('done'), { timeout: 5_000 });
    expect(reads.join('')).toBe('abé cd done');
    // The decoder takes only the reads from the cut character's lead byte to the next that ends in ASCII.
    expect(write.mock.calls.length).toBeLessThanOrEqual(2);
    write.mockRestore();
    const exited = new Promise((r) => p.onExit(r));
    p.kill('SIGKILL');
    await exited;
  });

  it('reads through node-pty when Node\'s socket has no onread to give', () => {
    const onData = vi.fn();
    ptyReader({ onData, _socket: { _handle: {} } } as unknown as IPty)(() => {});
    expect(onData).toHaveBeenCalledOnce();
  });

  it('writes through node-pty when its fd or its queue is not there', () => {
    const write = vi.fn();
    ptyWriter({ write } as unknown as IPty)('abc');
    expect(write).toHaveBeenCalledWith('abc');
  });
});

describe('the pty with the internals switched off (TAI_INTERNALS=0)', () => {
  beforeEach(() => vi.stubEnv('TAI_INTERNALS', '0'));
  afterEach(() => vi.unstubAllEnvs());

  it("writes and reads through node-pty's own API only", async () => {
    await withCat(async (p) => {
      const fire = vi.spyOn((p as unknown as { _onData: { fire: (d: string) => void } })._onData, 'fire');
      let seen = '';
      ptyReader(p)((d) => (seen += d));
      const write = vi.spyOn(p, 'write');
      ptyWriter(p)('k');
      expect(write).toHaveBeenCalledWith('k');
      await vi.waitFor(() => expect(seen).toContain('k'), { timeout: 5_000 });
      expect(fire).toHaveBeenCalled();
    });
  });

  it('reads none of node-pty\'s private fields to write', () => {
    const touched: string[] = [];
    const shape = new Proxy({ write: vi.fn() }, { get: (t, k) => (typeof k === 'string' && k.startsWith('_') && touched.push(k), Reflect.get(t, k)) });
    ptyWriter(shape as unknown as IPty)('k');
    expect(touched).toEqual([]);
  });
});
