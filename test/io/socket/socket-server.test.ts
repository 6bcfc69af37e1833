/**
 * The control server's transport: several requests on one connection, a
 * last line without a newline, silent clients, clients that hang up
 * mid-request, lines over the cap, thousands of connections at once, and the
 * typed client.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import type { AgentResult, AgentService } from '../../../src/core/agents/agent-service.js';
import { call, callRaw, CockpitUnreachableError, ControlConnection } from '../../../src/io/socket/control-client.js';
import { startControlServer } from '../../../src/io/socket/socket-server.js';
import { createBoard, type Board } from '../../../store/board.js';
import { exchange, startHarness, type Harness } from './socket-harness.js';
import { until } from '../../helpers/until.js';

let h: Harness;
afterEach(async () => {
  await h?.stop();
});

const connected = (path: string): Promise<Socket> =>
  new Promise((resolve, reject) => {
    const s = connect(path);
    s.once('connect', () => resolve(s));
    s.once('error', reject);
  });

const closed = (s: Socket): Promise<void> => new Promise((resolve) => (s.destroyed ? resolve() : s.once('close', () => resolve())));

describe('requests and replies', () => {
  test('answers several requests sent in sequence on one connection, in order', async () => {
    h = await startHarness();
    const replies = await exchange(
      h.path,
      '{"cmd":"vpane_open","label":"a"}\n{"cmd":"nope"}\n{"cmd":"vpane_list"}\n',
      3,
    );
    const lines = replies.trimEnd().split('\n').map((l) => JSON.parse(l) as { ok: boolean });
    expect(lines).toEqual([
      { ok: true, data: { id: 1, cols: 53, rows: 38 } },
      { ok: false, error: 'unknown command: "nope"' },
      { ok: true, data: [{ id: 1, state: 'running', header: ' ● a', cols: 53, rows: 38, closing: false }] },
    ]);
  });

  test('thousands of requests pipelined on one connection are all answered, in order', async () => {
    h = await startHarness();
    const n = 3_000;
    const lines = Array.from({ length: n }, (_, i) => JSON.stringify({ cmd: 'vpane_close', pane: 10_000 + i })).join('\n') + '\n';
    const replies = (await exchange(h.path, lines, n, 20_000)).trimEnd().split('\n');
    expect(replies).toHaveLength(n);
    replies.forEach((r, i) => expect(r).toBe(`{"ok":false,"error":"no such pane: ${10_000 + i}"}`));
  });

  test('a request split across many small writes is one request', async () => {
    h = await startHarness();
    const s = await connected(h.path);
    const line = '{"cmd":"vpane_open","label":"slow ✓"}\n';
    const bytes = Buffer.from(line);
    let reply = '';
    s.on('data', (c: Buffer) => (reply += c.toString()));
    for (const b of bytes) s.write(Buffer.from([b]));
    await until(() => reply.endsWith('\n'));
    expect(JSON.parse(reply)).toEqual({ ok: true, data: { id: 1, cols: 53, rows: 38 } });
    s.destroy();
  });

  test('a last line without a newline is answered when the client half-closes', async () => {
    h = await startHarness();
    const s = await connected(h.path);
    let reply = '';
    s.on('data', (c: Buffer) => (reply += c.toString()));
    s.end('{"cmd":"vpane_list"}');
    await closed(s);
    expect(reply).toBe('{"ok":true,"data":[]}\n');
  });

  test('blank lines and CRLF line ends are accepted', async () => {
    h = await startHarness();
    expect(await exchange(h.path, '\n\r\n   \n{"cmd":"vpane_list"}\r\n')).toBe('{"ok":true,"data":[]}\n');
  });
});

describe("spawn's session key", () => {
  test('reaches the agent service as sent; an empty or non-string key is refused naming the field, and nothing starts', async () => {
    const spawned: unknown[] = [];
    const agents: AgentService = {
      spawn: (request) => {
        spawned.push(request);
        return Promise.resolve({ id: spawned.length, label: 'a', shown: true });
      },
      poll: () => Promise.resolve(undefined),
      readRecord: () => Promise.resolve(undefined),
    };
    h = await startHarness({ agents });
    const replies = await exchange(
      h.path,
      [
        '{"cmd":"spawn","kind":"acp","argv":["gemini","--acp"],"prompt":"go on","session":"[\\"gemini\\",\\"\\",\\"/repo\\"]"}',
        '{"cmd":"spawn","kind":"acp","argv":["gemini"],"session":""}',
        '{"cmd":"spawn","kind":"acp","argv":["gemini"],"session":7}',
        '{"cmd":"spawn","kind":"acp","argv":["gemini"]}',
      ].join('\n') + '\n',
      4,
    );
    expect(replies.trimEnd().split('\n')).toEqual([
      '{"ok":true,"data":{"id":1,"label":"a","shown":true}}',
      '{"ok":false,"error":"spawn session must not be empty"}',
      '{"ok":false,"error":"spawn session must be a string"}',
      '{"ok":true,"data":{"id":2,"label":"a","shown":true}}',
    ]);
    expect(spawned).toEqual([
      { cmd: 'spawn', kind: 'acp', argv: ['gemini', '--acp'], prompt: 'go on', session: '["gemini","","/repo"]' },
      { cmd: 'spawn', kind: 'acp', argv: ['gemini'] },
    ]);
  });
});

describe('bad clients harm nobody', () => {
  test('a client that connects and sends nothing is closed after the idle timeout', async () => {
    h = await startHarness({ idleTimeoutMs: 100 });
    const s = await connected(h.path);
    await closed(s);
    expect(h.server.counters.idleClosed).toBe(1);
    expect(await exchange(h.path, '{"cmd":"vpane_list"}\n')).toBe('{"ok":true,"data":[]}\n');
  });

  test('a client that stops mid-line is closed after the idle timeout too', async () => {
    h = await startHarness({ idleTimeoutMs: 100 });
    const s = await connected(h.path);
    s.write('{"cmd":"vpane_');
    await closed(s);
    expect(h.server.counters.idleClosed).toBe(1);
  });

  test('a line over the cap is refused at once, without buffering more, and the connection closed', async () => {
    h = await startHarness({ lineMaxBytes: 1_024 });
    const s = await connected(h.path);
    let reply = '';
    s.on('data', (c: Buffer) => (reply += c.toString()));
    s.on('error', () => {}); // the server may hang up while we still write
    s.write('x'.repeat(1_025));
    await closed(s);
    expect(reply).toBe('{"ok":false,"error":"request line too long (limit 1024 bytes)"}\n');
    expect(h.server.counters.tooLong).toBe(1);
    expect(await exchange(h.path, '{"cmd":"vpane_list"}\n')).toBe('{"ok":true,"data":[]}\n');
  });

  test('the default cap is 8 MiB: a line of 8 MiB + 1 byte is refused', async () => {
    h = await startHarness();
    const reply = await exchange(h.path, Buffer.alloc(8 * 1_048_576 + 1, 0x61), 1, 20_000);
    expect(reply).toBe('{"ok":false,"error":"request line too long (limit 8388608 bytes)"}\n');
  });

  test('a client that hangs up before its reply only loses the reply', async () => {
    let release: (r: AgentResult) => void = () => {};
    const agents: AgentService = {
      spawn: () => Promise.reject(new Error('unused')),
      poll: () => new Promise((resolve) => (release = resolve)),
      readRecord: () => Promise.resolve(undefined),
    };
    h = await startHarness({ agents });
    const s = await connected(h.path);
    s.write('{"cmd":"poll","id":1,"wait":60}\n');
    await until(() => h.server.counters.requests === 1);
    s.destroy();
    release({ id: 1, state: 'done', finished: true, text: 'ok', chars: 2, reason: '' });
    await until(() => h.server.counters.writeFailures >= 1, { timeout: 5_000, what: 'the dropped reply to be counted' });
    await until(() => h.server.open === 0, { timeout: 5_000, what: 'the connection to close' });
    expect(await exchange(h.path, '{"cmd":"vpane_list"}\n')).toBe('{"ok":true,"data":[]}\n');
  });

  test('thousands of connections at once are all answered', async () => {
    h = await startHarness();
    const n = 2_000;
    const replies = await Promise.all(Array.from({ length: n }, () => exchange(h.path, '{"cmd":"vpane_list"}\n', 1, 20_000)));
    expect(replies.filter((r) => r === '{"ok":true,"data":[]}\n')).toHaveLength(n);
    await until(() => h.server.open === 0, { timeout: 10_000, what: 'every connection to close' });
    expect(h.server.counters.connections).toBe(n);
  });
});

describe('the typed client', () => {
  test('call sends a command and returns the typed reply', async () => {
    h = await startHarness();
    const opened = await call(h.path, { cmd: 'vpane_open', label: 'typed' });
    expect(opened).toEqual({ ok: true, data: { id: 1, cols: 53, rows: 38 } });
    const wrote = await call(h.path, { cmd: 'vpane_write', ops: [{ pane: 1, data: 'hi' }] });
    if (!wrote.ok) throw new Error(wrote.error);
    expect(wrote.data.cols['1']).toBe(53);
    expect(await callRaw(h.path, '{"cmd":"zoom"}')).toBe('{"ok":true,"data":null}');
  });

  test('a connection carries several requests in sequence', async () => {
    h = await startHarness();
    const conn = await ControlConnection.open(h.path);
    const a = await conn.request({ cmd: 'vpane_open', label: 'a' });
    const b = await conn.request({ cmd: 'vpane_open', label: 'b' });
    const l = await conn.request({ cmd: 'vpane_list' });
    conn.close();
    expect([a.ok, b.ok]).toEqual([true, true]);
    expect(l.ok && l.data.map((p) => p.id)).toEqual([1, 2]);
  });

  test('no socket file is a CockpitUnreachableError', async () => {
    h = await startHarness();
    await expect(call(`${h.dir}/missing.sock`, { cmd: 'status' })).rejects.toBeInstanceOf(CockpitUnreachableError);
  });
});

describe('starting before the board exists', () => {
  test('requests that arrive before the board is ready wait for it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tai-early-'));
    let ready: (b: Board) => void = () => {};
    const server = await startControlServer({ board: new Promise<Board>((resolve) => (ready = resolve)), path: join(dir, 'c.sock') });
    const reply = exchange(server.path, '{"cmd":"vpane_list"}\n');
    await until(() => server.counters.requests === 1);
    ready(createBoard());
    expect(await reply).toBe('{"ok":true,"data":[]}\n');
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });
});
