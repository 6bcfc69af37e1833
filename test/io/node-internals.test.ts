import { WriteStream } from 'node:tty';
import { openSync } from 'node:fs';
import pty from 'node-pty';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Readable } from 'node:stream';
import { execFileSync } from 'node:child_process';
import v8 from 'node:v8';
import { createServer, connect, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { internalsOn, setV8Flag, socketReads, ttyHandle, ttyReader } from '../../src/io/node-internals.js';
import { until } from '../helpers/until.js';

/** A terminal whose keys this process reads: the slave side of a raw pty, what is typed written to its master. */
async function aKeyboard(): Promise<{ path: string; type(text: string): void; end(): void }> {
  const p = pty.spawn('sh', ['-c', 'stty raw -echo && echo ready && exec sleep 30'], { cols: 20, rows: 4 });
  let seen = '';
  p.onData((d) => (seen += d));
  await until(() => seen.includes('ready'), { what: 'the terminal in raw mode', explain: () => seen });
  return { path: (p as unknown as { ptsName: string }).ptsName, type: (text) => p.write(text), end: () => p.kill('SIGKILL') };
}

/** What `ttyReader` hands on for `typed`, and how many of those bytes went through a Readable's push. */
async function readThrough(typed: string): Promise<{ got: string; pushed: number }> {
  const k = await aKeyboard();
  const push = vi.spyOn(Readable.prototype, 'push');
  let got = '';
  const stream = ttyReader(openSync(k.path, 'r'), 64, (bytes, length) => void (got += bytes.toString('utf8', 0, length)));
  try {
    stream.resume();
    k.type(typed);
    await until(() => got === typed, { what: 'the keys read', explain: () => JSON.stringify(got) });
    return { got, pushed: push.mock.calls.filter(([chunk]) => Buffer.isBuffer(chunk) && chunk.includes(typed)).length };
  } finally {
    push.mockRestore();
    stream.destroy();
    k.end();
  }
}

/** A terminal to open: the slave side of a pty running `sleep`. */
function aTerminal(): { path: string; end(): void } {
  const p = pty.spawn('sleep', ['30'], { cols: 20, rows: 4 });
  return { path: (p as unknown as { ptsName: string }).ptsName, end: () => p.kill('SIGKILL') };
}

/** A connected pair of Unix sockets: `ours` to read from, `theirs` to write to. */
async function aSocketPair(): Promise<{ ours: Socket; theirs: Socket; end(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'tai-socket-reads-'));
  const path = join(dir, 's');
  const accepted = new Promise<Socket>((resolve) => {
    const server = createServer((s) => {
      server.close();
      resolve(s);
    }).listen(path);
  });
  const ours = connect(path);
  await new Promise<void>((resolve) => ours.once('connect', () => resolve()));
  const theirs = await accepted;
  return { ours, theirs, end: () => (ours.destroy(), theirs.destroy(), rmSync(dir, { recursive: true, force: true })) };
}

describe("Node's internals (the canary)", () => {
  beforeEach(() => vi.stubEnv('TAI_INTERNALS', '1'));
  afterEach(() => vi.unstubAllEnvs());

  it("knows the V8 flags the idle collector sets at run time in this Node, or names the version that dropped them", () => {
    const options = execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8' });
    for (const flag of ['--semi-space-growth-factor', '--compact-on-every-full-gc']) {
      expect(options.includes(`  ${flag} `), `Node ${process.version} (V8 ${process.versions.v8}) no longer has ${flag}`).toBe(true);
    }
  });

  it('sets a V8 flag through Node, when on', () => {
    const set = vi.spyOn(v8, 'setFlagsFromString');
    try {
      expect(setV8Flag('--semi-space-growth-factor=2')).toBe(true);
      expect(set).toHaveBeenCalledWith('--semi-space-growth-factor=2');
    } finally {
      set.mockRestore();
    }
  });

  it("finds a tty stream's handle in this Node, or names the version that moved it", () => {
    const t = aTerminal();
    try {
      const stream = new WriteStream(openSync(t.path, 'w'));
      const handle = ttyHandle(stream);
      const missing = handle === undefined ? ['tty.WriteStream._handle (fd, setBlocking)'] : [];
      expect(missing, `Node ${process.version} no longer has ${missing.join(', ')}: src/io/node-internals.ts needs updating (TAI_INTERNALS=0 works around it meanwhile)`).toEqual([]);
      expect(handle!.setBlocking(false)).toBe(0);
      stream.destroy();
    } finally {
      t.end();
    }
  });

  it('hands every read on in the one reused buffer, no view made for a key', async () => {
    const k = await aKeyboard();
    const views = vi.spyOn(Buffer.prototype, 'subarray');
    const buffers = new Set<Buffer>();
    let got = '';
    const stream = ttyReader(openSync(k.path, 'r'), 64, (bytes, length) => {
      buffers.add(bytes);
      got += bytes.toString('latin1', 0, length);
    });
    try {
      stream.resume();
      for (const key of 'keys') {
        k.type(key);
        await until(() => got.endsWith(key), { what: `the key ${key} read`, explain: () => JSON.stringify(got) });
      }
      expect(got).toBe('keys');
      expect(buffers.size).toBe(1);
      expect(views).not.toHaveBeenCalled();
    } finally {
      views.mockRestore();
      stream.destroy();
      k.end();
    }
  });

  it("reads a terminal's keys through net.Socket's onread in this Node, never through a Readable's push, or names the version that moved it", async () => {
    const { got, pushed } = await readThrough('keys');
    expect(got).toBe('keys');
    expect(pushed, `Node ${process.version} no longer passes tty.ReadStream's onread option on to net.Socket: src/io/node-internals.ts (ttyReader) needs updating (TAI_INTERNALS=0 works around it meanwhile)`).toBe(0);
  });

  it("reads a socket through net.Socket's onread slots set after it was made in this Node, or names the version that moved them", async () => {
    const pair = await aSocketPair();
    try {
      const reads = socketReads(pair.ours);
      expect(reads, `Node ${process.version} no longer has net.Socket's _handle.fd, _handle.useUserBuffer, kBuffer or kBufferCb: src/io/node-internals.ts (socketReads) needs updating (TAI_INTERNALS=0 works around it meanwhile)`).toBeDefined();
      expect(reads!.fd).toBeGreaterThan(2);
      const buffer = Buffer.alloc(16);
      let got = '';
      const data = vi.fn();
      pair.ours.on('data', data);
      reads!.start(buffer, (n, buf) => {
        expect(buf).toBe(buffer);
        got += buf.toString('utf8', 0, n);
      });
      pair.theirs.write('hello');
      await until(() => got === 'hello', { what: 'the bytes read into the buffer', explain: () => JSON.stringify(got) });
      expect(data).not.toHaveBeenCalled();
      // Set once: a second start would leave the first reader's buffer behind.
      expect(socketReads(pair.ours)).toBeUndefined();
    } finally {
      pair.end();
    }
  });
});

describe("Node's internals switched off (TAI_INTERNALS=0)", () => {
  beforeEach(() => vi.stubEnv('TAI_INTERNALS', '0'));
  afterEach(() => vi.unstubAllEnvs());

  it('sets no V8 flag', () => {
    const set = vi.spyOn(v8, 'setFlagsFromString');
    try {
      expect(setV8Flag('--semi-space-growth-factor=2')).toBe(false);
      expect(set).not.toHaveBeenCalled();
    } finally {
      set.mockRestore();
    }
  });

  it('reads none of them: no handle, no socket reads', async () => {
    expect(internalsOn()).toBe(false);
    const pair = await aSocketPair();
    expect(socketReads(pair.ours)).toBeUndefined();
    pair.end();
    const t = aTerminal();
    try {
      const stream = new WriteStream(openSync(t.path, 'w'));
      expect(ttyHandle(stream)).toBeUndefined();
      stream.destroy();
    } finally {
      t.end();
    }
  });

  it("reads a terminal's keys through the stream's own 'data'", async () => {
    const { got, pushed } = await readThrough('keys');
    expect(got).toBe('keys');
    expect(pushed).toBeGreaterThan(0);
  });
});
