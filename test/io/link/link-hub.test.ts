/**
 * The server's side of the client link, over a real Unix socket: output to
 * every client, the layout at the latest writer's size, a read-only client
 * heard only for prefix + d, detach, `tai ls`'s query, `tai kill`, a bad
 * hello, a client that stops reading skipped instead of buffered; and a
 * client whose terminal (a real pty) the hub writes to itself.
 */
import { chownSync, mkdtempSync, readdirSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import * as pty from 'node-pty';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { encodeFrame, encodeJson, FRAME, FrameReader, LINK_HELLO_MAX, LINK_VERSION, payloadJson, payloadText, type Frame } from '../../../src/core/protocol/link-frames.js';
import { CLIENT_BEHIND_MAX, startLinkHub, type LinkHub } from '../../../src/io/link/link-hub.js';
import { openDirectTty } from '../../../src/io/link/direct-tty.js';
import { LAYOUT_COLS_MAX, LAYOUT_ROWS_MAX } from '../../../src/core/screen-bound.js';
import { until } from '../../helpers/until.js';

let dir: string;
let hub: LinkHub;
let logged: string[];
const sockets: Socket[] = [];
const terms: pty.IPty[] = [];

/** A client of the link: what it received, as frames. */
interface TestClient {
  readonly socket: Socket;
  readonly frames: Frame[];
  output(): string;
  closed(): boolean;
}

async function client(hello: Record<string, unknown>): Promise<TestClient> {
  const socket = connect(join(dir, 'hub.link'));
  sockets.push(socket);
  await new Promise<void>((r) => socket.once('connect', () => r()));
  const frames: Frame[] = [];
  const reader = new FrameReader(64 * 1_048_576);
  let closed = false;
  socket.on('data', (chunk: Buffer) => frames.push(...reader.push(chunk).frames));
  socket.on('close', () => (closed = true));
  socket.write(encodeJson(FRAME.hello, { version: LINK_VERSION, ...hello }));
  return { socket, frames, output: () => frames.filter((f) => f.type === FRAME.output).map(payloadText).join(''), closed: () => closed };
}

/** A connection that says nothing until told. */
async function rawClient(): Promise<TestClient> {
  const socket = connect(join(dir, 'hub.link'));
  sockets.push(socket);
  await new Promise<void>((r) => socket.once('connect', () => r()));
  const frames: Frame[] = [];
  const reader = new FrameReader();
  let closed = false;
  socket.on('data', (chunk: Buffer) => frames.push(...reader.push(chunk).frames));
  socket.on('error', () => {});
  socket.on('close', () => (closed = true));
  return { socket, frames, output: () => '', closed: () => closed };
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tai-hub-'));
  logged = [];
  hub = await startLinkHub({ path: join(dir, 'hub.link'), name: 'night', prefix: '\x1d', cols: 80, rows: 24, log: (line) => logged.push(line) });
});

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  for (const t of terms.splice(0)) t.kill('SIGKILL');
  await hub.end({ code: 0 });
  rmSync(dir, { recursive: true, force: true });
});

describe('the link hub', () => {
  it('sends output to every attached client, takes keys from writers and sizes the layout by the latest one', async () => {
    const sizes: string[] = [];
    const typed: string[] = [];
    const attached: string[] = [];
    hub.terminal.onResize(() => sizes.push(`${hub.terminal.cols}x${hub.terminal.rows}`));
    hub.terminal.onInput((data) => typed.push(data));
    hub.terminal.onAttach((send) => {
      attached.push('attach');
      send('MODES');
    });
    expect(hub.terminal.watched()).toBe(false);
    const a = await client({ mode: 'attach', cols: 100, rows: 30 });
    await until(() => hub.clients() === 1, { what: 'the first client attached' });
    expect(sizes).toEqual(['100x30']);
    const b = await client({ mode: 'attach', cols: 120, rows: 40 });
    await until(() => hub.clients() === 2, { what: 'the second client attached' });
    expect(sizes).toEqual(['100x30', '120x40']); // attaching is activity: the latest sizes it
    await until(() => a.output() === 'MODES' && b.output() === 'MODES', { what: 'each its own modes' });

    hub.terminal.write('frame-1');
    await until(() => a.output() === 'MODESframe-1' && b.output() === 'MODESframe-1', { what: 'the frame on both' });

    a.socket.write(encodeFrame(FRAME.input, 'ls\r'));
    await until(() => typed.join('') === 'ls\r', { what: 'the keys' });
    expect(sizes.at(-1)).toBe('100x30'); // a typed key makes a the latest
    // A multi-byte character split over two frames arrives whole.
    const euro = Buffer.from('€');
    a.socket.write(encodeFrame(FRAME.input, euro.subarray(0, 1)));
    a.socket.write(encodeFrame(FRAME.input, euro.subarray(1)));
    await until(() => typed.join('') === 'ls\r€', { what: 'the euro sign' });

    b.socket.write(encodeJson(FRAME.resize, { cols: 90, rows: 20 }));
    await until(() => sizes.at(-1) === '90x20', { what: 'the resize' });
    a.socket.destroy(); // the latest other than b is gone: b still rules
    await until(() => hub.clients() === 1, { what: 'a gone' });
    expect(sizes.at(-1)).toBe('90x20');
    expect(attached).toEqual(['attach', 'attach']);
  });

  it('hears a read-only client only for prefix + d, and never lets it size the layout while a writer is attached', async () => {
    const typed: string[] = [];
    hub.terminal.onInput((data) => typed.push(data));
    const writer = await client({ mode: 'attach', cols: 100, rows: 30 });
    await until(() => hub.clients() === 1, { what: 'the writer' });
    const viewer = await client({ mode: 'attach', cols: 40, rows: 12, readOnly: true });
    await until(() => hub.clients() === 2, { what: 'the viewer' });
    expect(`${hub.terminal.cols}x${hub.terminal.rows}`).toBe('100x30');
    viewer.socket.write(encodeFrame(FRAME.input, 'rm -rf ~\r\x1d'));
    viewer.socket.write(encodeFrame(FRAME.input, 'd'));
    await until(() => viewer.closed(), { what: 'the viewer detached' });
    const farewell = viewer.frames.find((f) => f.type === FRAME.detached);
    expect(payloadJson(farewell!)).toEqual({ code: 0, message: 'detached from cockpit night; tai attach night comes back (its agents go on)' });
    expect(typed).toEqual([]);
    expect(writer.closed()).toBe(false);
  });

  it('detaches the client that typed last, and says so when there is none', async () => {
    expect(hub.terminal.detach()).toBe('no client to detach');
    const a = await client({ mode: 'attach', cols: 100, rows: 30 });
    const b = await client({ mode: 'attach', cols: 100, rows: 30 });
    await until(() => hub.clients() === 2, { what: 'two clients' });
    b.socket.write(encodeFrame(FRAME.input, 'x'));
    await until(() => hub.terminal.detach() === undefined, { what: 'b typed' });
    await until(() => b.closed(), { what: 'b detached' });
    expect(a.closed()).toBe(false);
    expect(hub.clients()).toBe(1);
  });

  it("answers tai ls's query with its description and the clients attached, and tai kill by ending", async () => {
    hub.describe(() => ({ name: 'night', pid: 42, argv: ['bash'], cwd: '/repo', startedAt: 1, running: 2, asking: 1, done: 3 }));
    let killed = 0;
    hub.onKill(() => killed++);
    await client({ mode: 'attach', cols: 100, rows: 30 });
    await until(() => hub.clients() === 1, { what: 'one client' });
    const query = await client({ mode: 'query' });
    await until(() => query.closed(), { what: 'the answer' });
    expect(payloadJson(query.frames[0]!)).toEqual({ name: 'night', pid: 42, argv: ['bash'], cwd: '/repo', startedAt: 1, running: 2, asking: 1, done: 3, clients: 1 });

    const kill = await client({ mode: 'kill' });
    await until(() => killed === 1, { what: 'the kill' });
    hub.terminal.epilogue(['last line of the shell']);
    await hub.end({ code: 0, message: 'cockpit night was ended by tai kill' });
    await until(() => kill.closed(), { what: 'the farewell' });
    expect(payloadJson(kill.frames.find((f) => f.type === FRAME.exit)!)).toEqual({ code: 0, message: 'cockpit night was ended by tai kill', lines: ['last line of the shell'] });
  });

  it('refuses a bad hello with the reason, and a frame over the cap', async () => {
    const old = await client({ mode: 'attach', version: 0, cols: 80, rows: 24 });
    await until(() => old.closed(), { what: 'refused' });
    expect(payloadJson(old.frames[0]!)).toMatchObject({ code: 2, message: expect.stringMatching(/speaks link version 1, the client 0/) });
    const big = await client({ mode: 'attach', cols: 80, rows: 24 });
    const header = Buffer.alloc(5);
    header[0] = FRAME.input;
    header.writeUInt32BE(2 * 1_048_576, 1);
    big.socket.write(header);
    await until(() => big.closed(), { what: 'refused' });
    expect(payloadJson(big.frames.find((f) => f.type === FRAME.exit)!)).toMatchObject({ message: 'link frame too long (2097152 bytes, limit 1048576)' });
  });

  it('lays the board out for at most 1000x300, whatever size a hello or a resize frame reports', async () => {
    const sizes: string[] = [];
    hub.terminal.onResize(() => sizes.push(`${hub.terminal.cols}x${hub.terminal.rows}`));
    const a = await client({ mode: 'attach', cols: 10_000, rows: 10_000 });
    await until(() => hub.clients() === 1, { what: 'attached' });
    expect(`${hub.terminal.cols}x${hub.terminal.rows}`).toBe(`${LAYOUT_COLS_MAX}x${LAYOUT_ROWS_MAX}`);
    a.socket.write(encodeJson(FRAME.resize, { cols: 120, rows: 40 }));
    await until(() => hub.terminal.cols === 120, { what: 'resized' });
    a.socket.write(encodeJson(FRAME.resize, { cols: 9_999, rows: 5_000 }));
    await until(() => sizes.length === 3, { what: 'resized again' });
    expect(sizes).toEqual(['1000x300', '120x40', '1000x300']);
  });

  it('refuses a connection past the cap, closes one that never says hello, and reads no long frame before the hello', async () => {
    await hub.end({ code: 0 });
    hub = await startLinkHub({ path: join(dir, 'hub.link'), name: 'night', prefix: '\x1d', cols: 80, rows: 24, connectionsMax: 3, helloDeadlineMs: 300, log: (line) => logged.push(line) });
    await client({ mode: 'attach', cols: 80, rows: 24 });
    await until(() => hub.clients() === 1, { what: 'attached' });
    const idle: TestClient[] = [];
    for (let k = 0; k < 2; k++) idle.push(await rawClient());
    const over = await rawClient();
    await until(() => over.closed(), { what: 'the fourth connection refused' });
    expect(payloadJson(over.frames[0]!)).toMatchObject({ code: 1, message: 'too many connections to this cockpit (limit 3); close some and try again' });
    await until(() => idle.every((c) => c.closed()), { what: 'the silent ones closed' });
    expect(payloadJson(idle[0]!.frames[0]!)).toMatchObject({ code: 2, message: 'no hello within 300 ms' });
    const partial = await rawClient();
    const header = Buffer.alloc(5);
    header[0] = FRAME.hello;
    header.writeUInt32BE(1_048_576, 1);
    partial.socket.write(header);
    await until(() => partial.closed(), { what: 'the long first frame refused' });
    expect(payloadJson(partial.frames[0]!)).toMatchObject({ message: `link frame too long (1048576 bytes, limit ${LINK_HELLO_MAX})` });
  });

  it('skips a client that stops reading instead of buffering for it, and repaints it once it drains', async () => {
    let repaints = 0;
    hub.terminal.onAttach(() => repaints++);
    const reader = await client({ mode: 'attach', cols: 80, rows: 24 });
    const stalled = await client({ mode: 'attach', cols: 80, rows: 24 });
    await until(() => hub.clients() === 2, { what: 'two clients' });
    stalled.socket.pause();
    const chunk = 'y'.repeat(65_536);
    const total = 24 * 1_048_576;
    // Written as a server writes frames, a few at a time, with the loop free between them for the reading client.
    for (let sent = 0; sent < total; ) {
      for (let i = 0; i < 8; i++, sent += chunk.length) hub.terminal.write(chunk);
      const now = sent;
      await until(() => reader.output().length === now, { what: 'the reading client keeps up', timeout: 30_000 });
    }
    // The stalled one holds no more than the cap plus what the kernel buffers, not the 24 MiB sent.
    expect(repaints).toBe(2);
    stalled.socket.resume();
    await until(() => repaints === 3, { what: 'a repaint after the drain', timeout: 30_000 });
    expect(stalled.output().length).toBeLessThan(CLIENT_BEHIND_MAX + 4 * 1_048_576);
  });
});

/** A real terminal in raw mode, as a client leaves it (a pty running sleep), and what reaches its master since. */
async function terminal(): Promise<{ term: pty.IPty; path: string; claim: { path: string; rdev: number; dev: number }; text(): string }> {
  const term = pty.spawn('sh', ['-c', 'stty raw -echo opost onlcr && echo ready && exec sleep 60'], { name: 'xterm-256color', cols: 80, rows: 24 });
  terms.push(term);
  const path = (term as unknown as { ptsName: string }).ptsName;
  const stat = statSync(path);
  let text = '';
  term.onData((d) => (text += d));
  await until(() => text.includes('ready\r\n'), { what: 'the terminal in raw mode', explain: () => text });
  const start = text.indexOf('ready\r\n') + 'ready\r\n'.length;
  return { term, path, claim: { path, rdev: stat.rdev, dev: stat.dev }, text: () => text.slice(start) };
}

/** The fds of this process (the hub runs here) open on `path`. */
const openOn = (path: string): number => readdirSync('/proc/self/fd').filter((fd) => {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`) === path;
  } catch {
    return false;
  }
}).length;

describe('the link hub and a client that names its terminal', () => {
  // The server opens a client's terminal only with Node's internals on (src/io/node-internals.ts).
  beforeEach(() => vi.stubEnv('TAI_INTERNALS', '1'));
  afterEach(() => vi.unstubAllEnvs());
  it("writes that client's output to the terminal itself, not in frames, and detaches it only once every byte is there and the terminal closed", async () => {
    const typed: string[] = [];
    hub.terminal.onInput((data) => typed.push(data));
    hub.terminal.onAttach((send) => send('MODES'));
    const tty = await terminal();
    const before = openOn(tty.path);
    const a = await client({ mode: 'attach', cols: 80, rows: 24, tty: tty.claim, ttyInput: true });
    await until(() => hub.direct() === 1, { what: 'the direct client', explain: () => logged.join('\n') });
    expect(openOn(tty.path)).toBe(before + 2); // one to write, one to read
    hub.terminal.write('frame-1');
    await until(() => tty.text().includes('MODESframe-1'), { what: 'the modes and the frame on the terminal', explain: () => JSON.stringify(tty.text()) });
    expect(a.frames.filter((f) => f.type === FRAME.output)).toEqual([]);

    // More than the terminal takes at once, then prefix + d: the farewell waits for all of it and the close.
    tty.term.write('x');
    await until(() => typed.join('') === 'x', { what: 'a typed' });
    let openAtFarewell: number | undefined;
    a.socket.on('data', () => {
      if (openAtFarewell === undefined && a.frames.some((f) => f.type === FRAME.detached)) openAtFarewell = openOn(tty.path);
    });
    hub.terminal.write(`${'z'.repeat(2 * 1_048_576)}END`);
    expect(hub.terminal.detach()).toBeUndefined();
    await until(() => a.closed(), { what: 'a detached', timeout: 20_000 });
    expect(openAtFarewell).toBe(before); // the server had closed the terminal, its writes done, before the farewell
    // What it wrote may still sit in the pty's buffers for this side to read; none of it is lost.
    await until(() => tty.text().endsWith('END'), { what: 'every byte on the terminal', explain: () => `${tty.text().length} characters` });
    expect(tty.text().length).toBeGreaterThanOrEqual(2 * 1_048_576);
    expect(payloadJson(a.frames.find((f) => f.type === FRAME.detached)!)).toEqual({ code: 0, message: 'detached from cockpit night; tai attach night comes back (its agents go on)' });
  });

  it('reads the keys from the terminal of a client that offers it, says so first, and stops reading before the farewell; a read-only one only for prefix + d; a claim without the keys gets frames both ways', async () => {
    const typed: string[] = [];
    hub.terminal.onInput((data) => typed.push(data));
    const tty = await terminal();
    const before = openOn(tty.path);
    const a = await client({ mode: 'attach', cols: 80, rows: 24, tty: tty.claim, ttyInput: true });
    await until(() => a.frames.length > 0, { what: 'the attached frame' });
    expect(a.frames[0]?.type).toBe(FRAME.attached);
    expect(payloadJson(a.frames[0]!)).toEqual({ output: 'tty', input: 'tty' });
    expect(openOn(tty.path)).toBe(before + 2); // one to write, one to read
    const pushed = vi.spyOn(Readable.prototype, 'push');
    tty.term.write('ls\r€');
    await until(() => typed.join('') === 'ls\r€', { what: 'the keys from the terminal' });
    // Straight from the read to the hub: the keys never went through a Readable stream (net.Socket's onread).
    expect(pushed.mock.calls.filter(([chunk]) => Buffer.isBuffer(chunk) && chunk.includes('ls\r'))).toEqual([]);
    pushed.mockRestore();
    let openAtFarewell: number | undefined;
    a.socket.on('data', () => {
      if (openAtFarewell === undefined && a.frames.some((f) => f.type === FRAME.detached)) openAtFarewell = openOn(tty.path);
    });
    expect(hub.terminal.detach()).toBeUndefined(); // the client that typed last
    await until(() => a.closed(), { what: 'detached' });
    expect(openAtFarewell).toBe(before); // neither read nor written by the server once the client has its farewell

    const viewer = await client({ mode: 'attach', cols: 80, rows: 24, tty: tty.claim, ttyInput: true, readOnly: true });
    await until(() => hub.clients() === 1 && openOn(tty.path) === before + 2, { what: 'the viewer reading' });
    tty.term.write('rm -rf ~\r\x1d');
    tty.term.write('d');
    await until(() => viewer.closed(), { what: 'the viewer detached' });
    expect(typed.join('')).toBe('ls\r€');
    expect(openOn(tty.path)).toBe(before);

    // A claim without the keys (a client of before whose keys came from a pipe): the terminal is taken whole or not at all.
    const writer = await client({ mode: 'attach', cols: 80, rows: 24, tty: tty.claim });
    await until(() => writer.frames.length > 0, { what: 'the attached frame' });
    expect(payloadJson(writer.frames[0]!)).toEqual({ output: 'frames', input: 'frames' });
    expect(openOn(tty.path)).toBe(before);
    hub.terminal.write('frame-1');
    await until(() => writer.output() === 'frame-1', { what: 'the frame' });
    expect(tty.text()).toBe('');
  });

  it("drops input frames from a client whose terminal it reads itself, says so once naming that terminal, and keeps the client and its terminal's keys", async () => {
    const typed: string[] = [];
    hub.terminal.onInput((data) => typed.push(data));
    const tty = await terminal();
    const a = await client({ mode: 'attach', cols: 80, rows: 24, tty: tty.claim, ttyInput: true });
    await until(() => hub.direct() === 1, { what: 'the direct client', explain: () => logged.join('\n') });
    a.socket.write(encodeFrame(FRAME.input, 'rm -rf ~\r'));
    a.socket.write(encodeFrame(FRAME.input, 'rm -rf ~\r'));
    a.socket.write(encodeFrame(FRAME.resize, JSON.stringify({ cols: 100, rows: 30 })));
    // Frames of one connection are read in order: once the resize is in, so are the input frames before it.
    await until(() => hub.terminal.cols === 100, { what: 'the resize behind the input frames' });
    tty.term.write('ls\r');
    await until(() => typed.join('').includes('ls\r'), { what: 'the keys from the terminal', explain: () => JSON.stringify(typed) });
    expect(typed.join('')).toBe('ls\r');
    expect(logged).toEqual([`link: input frames from the client on ${tty.path} dropped: the server reads that terminal's keys itself`]);
    expect(a.closed()).toBe(false);
    expect(hub.clients()).toBe(1);
  });

  it('gives output frames to a client whose terminal is another device than it says, or not its user\'s, and logs why', async () => {
    const tty = await terminal();
    const liar = await client({ mode: 'attach', cols: 80, rows: 24, tty: { ...tty.claim, rdev: tty.claim.rdev + 1 }, ttyInput: true });
    const devnull = statSync('/dev/null');
    const notTty = await client({ mode: 'attach', cols: 80, rows: 24, tty: { path: '/dev/null', rdev: devnull.rdev, dev: devnull.dev }, ttyInput: true });
    await until(() => hub.clients() === 2, { what: 'both attached' });
    expect(hub.direct()).toBe(0);
    expect(logged).toEqual([`link: frames for a client: ${tty.path} is another device than the client's`, 'link: frames for a client: /dev/null is not a terminal']);
    hub.terminal.write('frame-1');
    await until(() => liar.output() === 'frame-1' && notTty.output() === 'frame-1', { what: 'the frames' });
    expect(tty.text()).toBe('');
    if (process.getuid?.() === 0) {
      // Root may hand the terminal to another user: a terminal of someone else is never written.
      chownSync(tty.path, 4242, 4242);
      await client({ mode: 'attach', cols: 80, rows: 24, tty: tty.claim, ttyInput: true });
      await until(() => hub.clients() === 3, { what: 'the third attached' });
      expect(logged.at(-1)).toBe(`link: frames for a client: ${tty.path} belongs to uid 4242, not this server's 0`);
      expect(hub.direct()).toBe(0);
    }
  });

  it("gives output frames to a client that names its terminal while Node's internals are switched off, and logs why", async () => {
    vi.stubEnv('TAI_INTERNALS', '0');
    const tty = await terminal();
    const c = await client({ mode: 'attach', cols: 80, rows: 24, tty: tty.claim, ttyInput: true });
    await until(() => hub.clients() === 1, { what: 'the client attached' });
    expect(hub.direct()).toBe(0);
    expect(logged).toEqual([`link: frames for a client: Node's internals are switched off (TAI_INTERNALS=0): the client keeps its terminal`]);
    hub.terminal.write('frame-1');
    await until(() => c.output() === 'frame-1', { what: 'the frame' });
    expect(tty.text()).toBe('');
  });

  it('skips a client whose terminal stops taking output instead of buffering for it, and repaints it once it drains', async () => {
    let repaints = 0;
    hub.terminal.onAttach(() => repaints++);
    const tty = await terminal();
    await client({ mode: 'attach', cols: 80, rows: 24, tty: tty.claim, ttyInput: true });
    await until(() => hub.direct() === 1, { what: 'the direct client' });
    tty.term.pause(); // nobody reads the terminal: an ssh that stalled
    const chunk = 'y'.repeat(65_536);
    for (let i = 0; i < 24 * 16; i++) hub.terminal.write(chunk);
    expect(logged.at(-1)).toMatch(/^link: a client fell \d+ bytes behind; skipping it until it drains$/);
    expect(repaints).toBe(1);
    tty.term.resume();
    await until(() => repaints === 2, { what: 'a repaint after the drain', timeout: 30_000 });
    // What reached the terminal is the cap and what the kernel holds, not the 24 MiB written.
    await until(() => tty.text().length > CLIENT_BEHIND_MAX, { what: 'the backlog on the terminal', timeout: 30_000 });
    expect(tty.text().length).toBeLessThan(CLIENT_BEHIND_MAX + 1_048_576);
  });

  it('counts a client whose terminal went away as gone, and the cockpit goes on for the others', async () => {
    const tty = await terminal();
    const gone = await client({ mode: 'attach', cols: 80, rows: 24, tty: tty.claim, ttyInput: true });
    const other = await client({ mode: 'attach', cols: 80, rows: 24 });
    await until(() => hub.clients() === 2 && hub.direct() === 1, { what: 'both attached' });
    (tty.term as unknown as { destroy(): void }).destroy(); // the terminal's master closed: the session was killed
    hub.terminal.write('frame-1');
    await until(() => gone.closed(), { what: 'the client gone', explain: () => logged.join('\n') });
    expect(hub.clients()).toBe(1);
    expect(logged.at(-1)).toMatch(new RegExp(`^link: a client's terminal ${tty.path} went away \\(.*EIO.*\\); that client is gone$`));
    expect(openOn(tty.path)).toBe(0);
    hub.terminal.write('frame-2');
    await until(() => other.output() === 'frame-1frame-2', { what: 'the other client goes on' });
  });
});

describe('a terminal written straight (DirectTty)', () => {
  // The server opens a client's terminal only with Node's internals on (src/io/node-internals.ts).
  beforeEach(() => vi.stubEnv('TAI_INTERNALS', '1'));
  afterEach(() => vi.unstubAllEnvs());
  it('writes an echo from its string without making a Buffer, and the rest of a short write whole when it cuts a character', async () => {
    const tty = await terminal();
    const direct = openDirectTty(tty.claim);
    if (typeof direct === 'string') throw new Error(direct);
    const from = vi.spyOn(Buffer, 'from');
    direct.write('é');
    expect(from).not.toHaveBeenCalled();
    from.mockRestore();
    await until(() => tty.text() === 'é', { what: 'the echo', explain: () => JSON.stringify(tty.text()) });
    tty.term.pause(); // two-byte characters until the kernel takes only part of a write: its cut may fall inside one
    const parts: string[] = [];
    for (let i = 0; direct.behind === 0 && i < 4_096; i++) {
      parts.push(`<${i}>${'é'.repeat(2_047)}`);
      direct.write(parts[parts.length - 1]!);
    }
    expect(direct.behind).toBeGreaterThan(0);
    tty.term.resume();
    direct.write('end');
    const want = `é${parts.join('')}end`;
    await until(() => tty.text().length >= want.length, { what: 'everything on the terminal', timeout: 30_000 });
    expect(tty.text()).toBe(want);
    await direct.close(1_000);
  });

  it('writes while nothing waits, queues what the terminal does not take, and loses nothing, not even a byte of a character cut in two, and keeps the order across both', async () => {
    const tty = await terminal();
    const direct = openDirectTty(tty.claim);
    if (typeof direct === 'string') throw new Error(direct);
    direct.write('first');
    await until(() => tty.text() === 'first', { what: 'the first write', explain: () => JSON.stringify(tty.text()) });
    tty.term.pause(); // the terminal stops taking output: the kernel's buffer fills, then the stream's
    const parts: string[] = [];
    for (let i = 0; direct.behind === 0 && i < 4_096; i++) {
      parts.push(`<${i}>─é${'z'.repeat(4_093)}`); // bytes are not UTF-16 units: a partial write counts bytes
      direct.write(parts[parts.length - 1]!);
    }
    expect(direct.behind).toBeGreaterThan(0);
    tty.term.resume();
    for (let i = 0; i < 64; i++) {
      parts.push(`[${i}]`);
      direct.write(parts[parts.length - 1]!);
      if (i % 8 === 0) await new Promise((resolve) => setImmediate(resolve)); // let the stream write between them
    }
    const want = `first${parts.join('')}`;
    await until(() => tty.text().length >= want.length, { what: 'everything on the terminal', timeout: 30_000 });
    expect(tty.text()).toBe(want);
    await direct.close(1_000);
    expect(openOn(tty.path)).toBe(0);
  });
});
