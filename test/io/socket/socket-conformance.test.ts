/**
 * Conformance with docs/spec.md, "The vpane protocol" and "Feed pane
 * lifecycle": the spec's example requests sent byte for byte, every error text,
 * the lease and orphan path on fake time, and closed-pane reporting. The board
 * is 120 x 39 (a 120 x 40 window less its status row), which gives the spec's
 * 53 x 38 feed pane.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { VPANE_ERRORS } from '../../../src/core/errors.js';
import { MPLEX_VPANE_WRITE_MAX } from '../../../src/core/policy.js';
import { exchange, startHarness, type Harness } from './socket-harness.js';

const SEED_OPEN = '{"cmd":"vpane_open","pane":"0","label":"agent #1","header":" ● agent #1 · running · 0s","state":"running","main_percent":55}\n';
const SEED_WRITE = String.raw`{"cmd":"vpane_write","ops":[{"pane":3,"data":"\u001b[1mhello\u001b[0m\r\n","header":" ● agent #1 · running · 4s","state":"running"},{"pane":4,"data":"bye\r\n","state":"done","done":true,"linger":20}]}` + '\n';

let h: Harness;
afterEach(async () => {
  await h?.stop();
});

/** Sends one line on a fresh connection and returns the reply line, newline included. */
const send = (line: string): Promise<string> => exchange(h.path, line.endsWith('\n') ? line : `${line}\n`);
const open = async (label: string): Promise<number> =>
  (JSON.parse(await send(JSON.stringify({ cmd: 'vpane_open', label }))) as { data: { id: number } }).data.id;
const list = async (): Promise<Array<{ id: number; state: string; header: string; closing: boolean }>> =>
  (JSON.parse(await send('{"cmd":"vpane_list"}')) as { data: Array<{ id: number; state: string; header: string; closing: boolean }> }).data;

describe('the spec examples, byte for byte', () => {
  test('vpane_open answers id, cols and rows exactly as the spec shows', async () => {
    h = await startHarness();
    // Ids 1 and 2 are used and gone, so the spec's pane is number 3 as in its example.
    await open('first');
    await open('second');
    expect(await send('{"cmd":"vpane_close","pane":1}')).toBe('{"ok":true,"data":null}\n');
    expect(await send('{"cmd":"vpane_close","pane":2}')).toBe('{"ok":true,"data":null}\n');
    expect(await exchange(h.path, SEED_OPEN)).toBe('{"ok":true,"data":{"id":3,"cols":53,"rows":38}}\n');
    const [pane] = await list();
    expect(pane).toEqual({ id: 3, state: 'running', header: ' ● agent #1 · running · 0s', cols: 53, rows: 38, closing: false });
  });

  test('vpane_write answers closed and cols exactly as the spec shows, and feeds the screens', async () => {
    h = await startHarness();
    await open('first');
    await open('second');
    await send('{"cmd":"vpane_close","pane":1}');
    await send('{"cmd":"vpane_close","pane":2}');
    await exchange(h.path, SEED_OPEN);
    expect(await open('agent #2')).toBe(4);
    expect(await exchange(h.path, SEED_WRITE)).toBe('{"ok":true,"data":{"closed":[],"cols":{"3":53,"4":53}}}\n');

    expect((await h.screenText(3))[0]).toBe('hello');
    expect((await h.screenText(4))[0]).toBe('bye');
    const panes = await list();
    expect(panes.find((p) => p.id === 3)).toMatchObject({ state: 'running', header: ' ● agent #1 · running · 4s', closing: false });
    expect(panes.find((p) => p.id === 4)).toMatchObject({ state: 'done', closing: true });
  });
});

describe('every error text of docs/spec.md, "The vpane protocol"', () => {
  test('too many feed panes (limit 8)', async () => {
    h = await startHarness({ rows: 80 });
    for (let i = 0; i < 8; i++) await open(`p${i}`);
    expect(await send('{"cmd":"vpane_open","label":"ninth"}')).toBe(`{"ok":false,"error":"${VPANE_ERRORS.tooManyFeedPanes}"}\n`);
    expect(VPANE_ERRORS.tooManyFeedPanes).toBe('too many feed panes (limit 8)');
  });

  test('too many panes (limit 256)', async () => {
    h = await startHarness({ maxLive: 1_000 });
    // Agent panels fill the pane table; they are hidden when there is no room, but they count.
    for (let i = 0; i < 255; i++) h.board.getState().open({ label: `a${i}` }, h.clock.t);
    expect(await send('{"cmd":"vpane_open","label":"x"}')).toBe('{"ok":false,"error":"too many panes (limit 256)"}\n');
  });

  test('no space for another feed pane', async () => {
    h = await startHarness({ rows: 10 });
    await open('only');
    expect(await send('{"cmd":"vpane_open","label":"x"}')).toBe('{"ok":false,"error":"no space for another feed pane"}\n');
  });

  test('window too narrow for a feed pane (under 41 columns)', async () => {
    h = await startHarness({ cols: 40 });
    expect(await send('{"cmd":"vpane_open","label":"x"}')).toBe('{"ok":false,"error":"window too narrow for a feed pane"}\n');
  });

  test('ops must be a list', async () => {
    h = await startHarness();
    expect(await send('{"cmd":"vpane_write","ops":{"pane":1}}')).toBe('{"ok":false,"error":"ops must be a list"}\n');
    expect(await send('{"cmd":"vpane_write"}')).toBe('{"ok":false,"error":"ops must be a list"}\n');
  });

  test('too many ops in one write (17 ops; 16 pass)', async () => {
    h = await startHarness();
    const id = await open('p');
    const ops = (n: number): string => JSON.stringify({ cmd: 'vpane_write', ops: Array.from({ length: n }, () => ({ pane: id, data: 'x' })) });
    expect(await send(ops(17))).toBe('{"ok":false,"error":"too many ops in one write"}\n');
    expect(await send(ops(16))).toBe(`{"ok":true,"data":{"closed":[],"cols":{"${id}":53}}}\n`);
  });

  test('op data too large: 65536 UTF-8 bytes pass, one more is refused and nothing is written', async () => {
    h = await startHarness();
    const id = await open('p');
    const fits = 'é'.repeat(MPLEX_VPANE_WRITE_MAX / 2); // 2 bytes each
    expect(await send(JSON.stringify({ cmd: 'vpane_write', ops: [{ pane: id, data: fits }] }))).toContain('"ok":true');
    const tooBig = JSON.stringify({ cmd: 'vpane_write', ops: [{ pane: id, data: 'a' }, { pane: id, data: `${fits}a` }] });
    expect(await send(tooBig)).toBe('{"ok":false,"error":"op data too large"}\n');
    expect(h.board.counters.bytesWritten).toBe(0);
  });

  test('the largest valid write, 16 ops of 65536 bytes all sent as \\u escapes, is accepted', async () => {
    h = await startHarness();
    const id = await open('p');
    const data = String.raw`\u001b`.repeat(MPLEX_VPANE_WRITE_MAX);
    const op = `{"pane":${id},"data":"${data}","header":"${'h'.repeat(200)}","state":"running"}`;
    const line = `{"cmd":"vpane_write","ops":[${Array.from({ length: 16 }, () => op).join(',')}]}\n`;
    expect(Buffer.byteLength(line)).toBeGreaterThan(6 * 1_048_576);
    expect(await exchange(h.path, line, 1, 20_000)).toBe(`{"ok":true,"data":{"closed":[],"cols":{"${id}":53}}}\n`);
  });

  test('tai’s own refusals name the problem', async () => {
    h = await startHarness();
    expect(await send('{"cmd":"vpane_close","pane":9}')).toBe('{"ok":false,"error":"no such pane: 9"}\n');
    expect(await send('{"cmd":"launch"}')).toBe('{"ok":false,"error":"unknown command: \\"launch\\""}\n');
    expect(await send('{"pane":1}')).toBe('{"ok":false,"error":"missing field: cmd"}\n');
    expect(await send('[1,2]')).toBe('{"ok":false,"error":"request must be a JSON object"}\n');
    expect(await send('{"cmd":"vpane_write","ops":[{"data":"x"}]}')).toBe('{"ok":false,"error":"missing field: vpane_write ops[0].pane"}\n');
    expect(await send('{"cmd":"vpane_write","ops":[{"pane":1,"state":"happy"}]}')).toBe(
      '{"ok":false,"error":"vpane_write ops[0].state must be one of running, idle, done, failed, timeout, cancelled (got \\"happy\\")"}\n',
    );
    expect(await send('{"cmd":"spawn","kind":"command","argv":["true"]}')).toBe(
      '{"ok":false,"error":"agents cannot be started here: this cockpit has no agent runners"}\n',
    );
    expect(await send('{"cmd":"vpane_open",')).toMatch(/^\{"ok":false,"error":"malformed JSON: .+"\}\n$/);
  });
});

describe('the lifecycle of docs/spec.md, "Feed pane lifecycle" on fake time', () => {
  test('a done op lingers, then the pane closes and the next write reports it closed', async () => {
    h = await startHarness();
    const a = await open('a');
    const b = await open('b');
    await send(JSON.stringify({ cmd: 'vpane_write', ops: [{ pane: b, data: 'bye\r\n', state: 'done', done: true, linger: 20 }] }));
    h.advance(19_000);
    expect((await list()).map((p) => p.id)).toEqual([a, b]);
    h.advance(1_000);
    expect((await list()).map((p) => p.id)).toEqual([a]);
    expect(await send(JSON.stringify({ cmd: 'vpane_write', ops: [{ pane: a, data: 'x' }, { pane: b, data: 'y' }] }))).toBe(
      `{"ok":true,"data":{"closed":[${b}],"cols":{"${a}":53}}}\n`,
    );
  });

  test('a linger over 300 s is clamped to 300 s', async () => {
    h = await startHarness();
    const a = await open('a');
    await send(JSON.stringify({ cmd: 'vpane_write', ops: [{ pane: a, done: true, linger: 10_000 }] }));
    h.advance(299_000);
    expect(await list()).toHaveLength(1);
    h.advance(1_000);
    expect(await list()).toHaveLength(0);
  });

  test('a pane the user closed is reported in closed of the next write', async () => {
    h = await startHarness();
    const a = await open('a');
    const b = await open('b');
    h.board.getState().closeByUser(a, h.clock.t);
    expect(await send(JSON.stringify({ cmd: 'vpane_write', ops: [{ pane: a, data: 'x' }, { pane: b, data: 'y' }] }))).toBe(
      `{"ok":true,"data":{"closed":[${a}],"cols":{"${b}":53}}}\n`,
    );
  });

  test('a pane closed with the close command (the key door) is reported the same way', async () => {
    h = await startHarness();
    const a = await open('a');
    expect(await send(JSON.stringify({ cmd: 'close', pane: a }))).toBe('{"ok":true,"data":null}\n');
    expect(await send(JSON.stringify({ cmd: 'vpane_write', ops: [{ pane: a, data: 'x' }] }))).toBe(
      `{"ok":true,"data":{"closed":[${a}],"cols":{}}}\n`,
    );
  });

  test('an owner silent for 30 s: header owner gone, state failed, closed 10 s later', async () => {
    h = await startHarness();
    const a = await open('a');
    h.advance(10_000);
    await send(JSON.stringify({ cmd: 'vpane_write', ops: [{ pane: a, header: ' ● job · running' }] })); // refreshes the lease
    h.advance(29_000);
    expect(await list()).toMatchObject([{ id: a, state: 'running', header: ' ● job · running', closing: false }]);
    h.advance(1_000);
    expect(await list()).toMatchObject([{ id: a, state: 'failed', header: 'owner gone: ● job · running', closing: true }]);
    h.advance(9_000);
    expect(await list()).toHaveLength(1);
    h.advance(1_000);
    expect(await list()).toHaveLength(0);
    expect(await send(JSON.stringify({ cmd: 'vpane_write', ops: [{ pane: a, data: 'late' }] }))).toBe(
      `{"ok":true,"data":{"closed":[${a}],"cols":{}}}\n`,
    );
  });
});
