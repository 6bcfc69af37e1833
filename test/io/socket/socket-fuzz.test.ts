/**
 * Fuzz: thousands of random and malformed lines against a live socket. Every
 * line gets an error reply, the board is untouched, and valid requests are
 * answered correctly afterwards. The generator is seeded, so a failure
 * reproduces.
 */
import { afterEach, expect, test } from 'vitest';
import { ControlConnection } from '../../../src/io/socket/control-client.js';
import { connect } from 'node:net';
import { exchange, startHarness, type Harness } from './socket-harness.js';
import { until } from '../../helpers/until.js';

let h: Harness;
afterEach(async () => {
  await h?.stop();
});

/** mulberry32: a small seeded generator. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const VALID = [
  '{"cmd":"vpane_open","pane":"0","label":"agent #1","header":" ● agent #1 · running · 0s","state":"running","main_percent":55}',
  '{"cmd":"vpane_write","ops":[{"pane":1,"data":"hello\\r\\n","state":"done","done":true,"linger":20}]}',
  '{"cmd":"vpane_close","pane":1}',
  '{"cmd":"spawn","kind":"command","argv":["ls"]}',
  '{"cmd":"cancel","id":1}',
  '{"cmd":"poll","id":1,"wait":1}',
  '{"cmd":"record_read","id":"r1","offset":0,"limit":10}',
  '{"cmd":"focus","to":"next"}',
  '{"cmd":"scroll","pages":-1}',
];

/** Requests with one field broken (the % is replaced by each value), each certain to be refused. */
const BROKEN: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['{"cmd":"vpane_open","label":%}', ['1', 'true', '[]', '{}']],
  ['{"cmd":"vpane_open","state":%}', ['"happy"', '1', '"running "']],
  ['{"cmd":"vpane_open","main_percent":%}', ['"55"', 'true', '[]']],
  ['{"cmd":"vpane_open","pane":%}', ['true', '[]', '1.5']],
  ['{"cmd":"vpane_write","ops":%}', ['{}', '"x"', '1', 'null']],
  ['{"cmd":"vpane_write","ops":[{"pane":%,"data":"x"}]}', ['-1', '1.5', '"x"', 'null', 'true', '[]', '1e400']],
  ['{"cmd":"vpane_write","ops":[{"pane":1,"data":%}]}', ['1', 'true', '[]', '{}']],
  ['{"cmd":"vpane_write","ops":[{"pane":1,"done":%}]}', ['"yes"', '1']],
  ['{"cmd":"vpane_write","ops":[{"pane":1,"linger":%}]}', ['"20"', 'true', '[]']],
  ['{"cmd":"vpane_write","ops":[{"pane":1,"header":%}]}', ['1', '[]']],
  ['{"cmd":"vpane_write","ops":[%]}', ['1', '"x"', 'null', '[]']],
  ['{"cmd":"vpane_close","pane":%}', ['"x"', '-1', '1.5', 'null']],
  ['{"cmd":"spawn","kind":%,"argv":["ls"]}', ['""', '1', 'null']],
  ['{"cmd":"spawn","kind":"command","argv":%}', ['"ls"', '[1]', '{}']],
  ['{"cmd":"cancel","id":%}', ['"1"', '-1', '1.5', 'null']],
  ['{"cmd":"poll","id":1,"wait":%}', ['-1', '"1"']],
  ['{"cmd":"record_read","id":%}', ['""', '1', 'null']],
  ['{"cmd":"focus","to":%}', ['"sideways"', '-1', '1.5', 'null']],
  ['{"cmd":"scroll","pages":%}', ['1.5', '"1"', 'null']],
  ['{"cmd":"scroll","lines":%}', ['1.5', '"1"', '[]']],
  ['{"cmd":"close","pane":%}', ['"x"', '-1']],
  ['{"cmd":%}', ['"vpane_opne"', '1', 'null', '"__proto__"', '"toString"', '"VPANE_OPEN"']],
];

/** A line that must be refused: random bytes, a cut valid request, a broken field, or JSON that is no request. */
function badLine(r: () => number): Buffer {
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  switch (Math.floor(r() * 4)) {
    case 0: {
      // Random bytes: never a newline, and starting with a byte that is not blank.
      const n = 1 + Math.floor(r() * 200);
      const bytes = Buffer.alloc(n);
      for (let i = 0; i < n; i++) {
        const b = Math.floor(r() * 256);
        bytes[i] = b === 0x0a ? 0x0b : b;
      }
      bytes[0] = 0x21 + Math.floor(r() * 90);
      return bytes;
    }
    case 1: {
      // A valid request cut short: a prefix of a JSON object is never valid JSON.
      const v = pick(VALID);
      return Buffer.from(v.slice(0, 1 + Math.floor(r() * (v.length - 2))));
    }
    case 2: {
      const [template, values] = pick(BROKEN);
      return Buffer.from(template.replace('%', pick(values)));
    }
    default:
      return Buffer.from(pick(['[]', '1', '"vpane_list"', 'null', '{}', 'true', '{"cmd":"vpane_list"', '{"cmd":"vpane_list"}}']));
  }
}

test('thousands of random and malformed lines get error replies and change nothing', async () => {
  h = await startHarness();
  const opened = await exchange(h.path, '{"cmd":"vpane_open","label":"keeper"}\n');
  expect(opened).toBe('{"ok":true,"data":{"id":1,"cols":53,"rows":38}}\n');
  const before = JSON.stringify(h.board.getState().panels);

  const r = rng(20_261_130);
  const total = 4_000;
  const conn = await ControlConnection.open(h.path);
  const accepted: string[] = [];
  for (let i = 0; i < total; i++) {
    // Sent in sequence on one connection; invalid UTF-8 arrives as U+FFFD here, raw below.
    const line = badLine(r).toString('utf8');
    const reply = JSON.parse(await conn.raw(line)) as { ok: boolean; error?: unknown };
    if (reply.ok || typeof reply.error !== 'string' || reply.error === '') accepted.push(line);
  }
  conn.close();
  // Some one-per-connection too, the original's way, with raw bytes.
  const r2 = rng(7);
  const raw = await Promise.all(Array.from({ length: 300 }, () => exchange(h.path, Buffer.concat([badLine(r2), Buffer.from('\n')]))));
  for (const reply of raw) expect(reply).toMatch(/^\{"ok":false,"error":".*"\}\n$/);

  expect(accepted).toEqual([]);
  expect(JSON.stringify(h.board.getState().panels)).toBe(before);

  // The server still answers valid requests correctly.
  expect(await exchange(h.path, '{"cmd":"vpane_write","ops":[{"pane":1,"data":"still here"}]}\n')).toBe(
    '{"ok":true,"data":{"closed":[],"cols":{"1":53}}}\n',
  );
  expect((await h.screenText(1))[0]).toBe('still here');
  expect(h.server.counters.requests).toBeGreaterThanOrEqual(total + 300);
});

test('malformed lines cut at random byte boundaries on one connection each get one error reply', async () => {
  h = await startHarness();
  const r = rng(42);
  const lines = Array.from({ length: 2_000 }, () => badLine(r));
  const blob = Buffer.concat(lines.flatMap((l) => [l, Buffer.from('\n')]));
  const sock = connect(h.path);
  let got = '';
  sock.on('data', (c: Buffer) => (got += c.toString('utf8')));
  await new Promise<void>((resolve) => sock.once('connect', () => resolve()));
  for (let at = 0; at < blob.length; ) {
    const n = 1 + Math.floor(r() * 300);
    sock.write(blob.subarray(at, at + n));
    at += n;
  }
  await until(() => got.split('\n').length - 1 >= lines.length, { timeout: 20_000, what: 'every reply' });
  sock.end('{"cmd":"vpane_list"}\n');
  await until(() => got.split('\n').length - 1 === lines.length + 1, { timeout: 5_000, what: 'the last reply' });
  const replies = got.trimEnd().split('\n');
  expect(replies.slice(0, -1).every((l) => l.startsWith('{"ok":false,"error":"'))).toBe(true);
  expect(JSON.parse(replies[replies.length - 1] ?? '')).toMatchObject({ ok: true, data: [] });
});
