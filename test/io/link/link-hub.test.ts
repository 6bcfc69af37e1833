/**
 * The server's side of the client link, over a real Unix socket: output to
 * every client, the layout at the latest writer's size, a read-only client
 * heard only for prefix + d, detach, `tai ls`'s query, `tai kill`, a bad
 * hello, and a client that stops reading skipped instead of buffered.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encodeFrame, encodeJson, FRAME, FrameReader, LINK_VERSION, payloadJson, payloadText, type Frame } from '../../../src/core/protocol/link-frames.js';
import { CLIENT_BEHIND_MAX, startLinkHub, type LinkHub } from '../../../src/io/link/link-hub.js';
import { until } from '../../helpers/until.js';

let dir: string;
let hub: LinkHub;
const sockets: Socket[] = [];

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

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tai-hub-'));
  hub = await startLinkHub({ path: join(dir, 'hub.link'), name: 'night', prefix: '\x1d', cols: 80, rows: 24, log: () => {} });
});

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
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
