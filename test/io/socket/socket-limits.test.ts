/**
 * What one connection can cost the cockpit (docs/protocol.md, "Limits"): a
 * client that pipelines large replies and never reads them, a reply over
 * the cap, a poll that asks to wait longer than a timer holds, a request
 * that is never answered, and more connections than the cap.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import type { AgentResult, AgentService, RecordPage } from '../../../src/core/agents/agent-service.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call } from '../../../src/io/socket/control-client.js';
import { fileLimit } from '../../../src/io/socket/file-limit.js';
import { startControlServer } from '../../../src/io/socket/socket-server.js';
import { fixture, harness } from '../../helpers/agents.js';
import { until } from '../../helpers/until.js';
import { exchange, startHarness, type Harness } from './socket-harness.js';

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

const MB = 1_000_000;

/** Agents whose every record is `chars` x's long, and whose polls are recorded. */
function agentsWithRecords(chars: number, polls: Array<number | undefined> = []): AgentService {
  return {
    spawn: () => Promise.reject(new Error('unused')),
    poll: (id, waitMs) => {
      polls.push(waitMs);
      return Promise.resolve<AgentResult>({ id, state: 'done', finished: true, text: 'ok', chars: 2, reason: '' });
    },
    readRecord: (id, offset = 0, limit = chars) =>
      Promise.resolve<RecordPage>({ id, offset, text: 'x'.repeat(Math.min(limit, chars)), total: chars, next: null }),
  };
}

describe('a client that does not read its replies', () => {
  test('pipelining record_read of 1,000,000 characters keeps at most one reply buffered on the server, and every reply still comes once it reads', async () => {
    h = await startHarness({ agents: agentsWithRecords(MB) });
    const n = 20;
    const s = await connected(h.path);
    s.pause();
    s.write(`${JSON.stringify({ cmd: 'record_read', id: 'r-1', limit: MB })}\n`.repeat(n));
    // Either the server holds back (it waits for the client to drain) or it has buffered far more than one reply.
    await until(() => (h.server.counters.requests === n && h.server.counters.drainWaits >= 1) || h.server.buffered > 8 * MB, { timeout: 10_000, what: 'the server to stop writing' });
    const oneReply = Buffer.byteLength(JSON.stringify({ ok: true, data: { id: 'r-1', offset: 0, text: 'x'.repeat(MB), total: MB, next: null } })) + 1;
    expect(h.server.buffered).toBeLessThanOrEqual(oneReply);
    let got = 0;
    s.on('data', (c: Buffer) => {
      for (const b of c) if (b === 0x0a) got++;
    });
    s.resume();
    await until(() => got === n, { timeout: 20_000, what: 'every reply' });
    s.destroy();
  });

  test('is closed after the idle timeout while its reply waits', async () => {
    h = await startHarness({ agents: agentsWithRecords(MB), idleTimeoutMs: 200 });
    const s = await connected(h.path);
    s.pause();
    s.write(`${JSON.stringify({ cmd: 'record_read', id: 'r-1', limit: MB })}\n`.repeat(4));
    await until(() => h.server.counters.idleClosed === 1 && h.server.open === 0, { timeout: 10_000, what: 'the stalled connection to close' });
    s.destroy();
    expect(await exchange(h.path, '{"cmd":"vpane_list"}\n')).toBe('{"ok":true,"data":[]}\n');
  });
});

describe('the size of a reply', () => {
  test('a reply over the cap is replaced by an error that says the size and the limit', async () => {
    h = await startHarness({ agents: agentsWithRecords(20_000), replyMaxBytes: 10_000 });
    const whole = JSON.stringify({ ok: true, data: { id: 'r-1', offset: 0, text: 'x'.repeat(20_000), total: 20_000, next: null } });
    expect(await exchange(h.path, '{"cmd":"record_read","id":"r-1","limit":20000}\n{"cmd":"record_read","id":"r-1","limit":100}\n', 2)).toBe(
      `{"ok":false,"error":"reply too large (${whole.length} bytes, limit 10000 bytes); ask for less (record_read limit)"}\n` +
        `${JSON.stringify({ ok: true, data: { id: 'r-1', offset: 0, text: 'x'.repeat(100), total: 20_000, next: null } })}\n`,
    );
    expect(h.server.counters.tooLarge).toBe(1);
  });
});

describe("a poll's wait", () => {
  test('over 2^31 ms is clamped to an hour on both sides: no timer overflows', async () => {
    const polls: Array<number | undefined> = [];
    h = await startHarness({ agents: agentsWithRecords(10, polls) });
    const warnings: string[] = [];
    const onWarning = (w: Error): void => void warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const reply = await call(h.path, { cmd: 'poll', id: 1, wait: 2 ** 32 });
      expect(reply.ok).toBe(true);
      await new Promise<void>((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(polls).toEqual([3_600_000]);
    expect(warnings).not.toContain('TimeoutOverflowWarning');
  });
});

describe('deadlines', () => {
  test('a request not answered within its deadline gets an error, and the connection goes on', async () => {
    const agents: AgentService = { ...agentsWithRecords(10), readRecord: () => new Promise<RecordPage | undefined>(() => {}) };
    h = await startHarness({ agents, requestDeadlineMs: 50 });
    expect(await exchange(h.path, '{"cmd":"record_read","id":"r-1"}\n{"cmd":"vpane_list"}\n', 2)).toBe(
      '{"ok":false,"error":"request not answered within 50 ms"}\n{"ok":true,"data":[]}\n',
    );
    expect(h.server.counters.deadlines).toBe(1);
  });
});

describe('connections', () => {
  test('past the cap a connection gets one refusal line and is closed; once one closes, the next is served', async () => {
    h = await startHarness({ connectionsMax: 3 });
    const idle = await Promise.all([connected(h.path), connected(h.path), connected(h.path)]);
    await until(() => h.server.open === 3, { timeout: 5_000, what: 'three connections' });
    expect(await exchange(h.path, '{"cmd":"vpane_list"}\n')).toBe('{"ok":false,"error":"too many connections (limit 3)"}\n');
    expect(h.server.counters.refused).toBe(1);
    idle[0]?.destroy();
    await until(() => h.server.open === 2, { timeout: 5_000, what: 'one to close' });
    expect(await exchange(h.path, '{"cmd":"vpane_list"}\n')).toBe('{"ok":true,"data":[]}\n');
    for (const s of idle) s.destroy();
  });

  test('the cap fits the open-file limit by default: 4096, or the limit less 256 kept for ptys, pipes and files', async () => {
    expect(fileLimit('Limit  Soft Limit  Hard Limit  Units\nMax open files            1024                 524288               files\n')).toEqual({ soft: 1_024, hard: 524_288 });
    expect(fileLimit('Max open files            unlimited            unlimited            files\n')).toEqual({ soft: Infinity, hard: Infinity });
    h = await startHarness();
    const soft = fileLimit()?.soft ?? Infinity;
    expect(h.server.connectionsMax).toBe(Math.max(16, Math.min(4_096, soft - 256)));
  });
});

describe('a spawn that cannot start', () => {
  test('argv with a NUL is refused with a clear error and leaves no panel; after twenty, a real spawn gets its panel', async () => {
    const agents = harness();
    const dir = mkdtempSync(join(tmpdir(), 'tai-nul-'));
    const server = await startControlServer({ board: agents.board, agents: agents.service, path: join(dir, 'c.sock') });
    try {
      const bad = `${JSON.stringify({ cmd: 'spawn', kind: 'command', argv: [process.execPath, 'a\u0000b'] })}\n`;
      const replies = (await exchange(server.path, bad.repeat(20), 20)).trimEnd().split('\n');
      expect(new Set(replies)).toEqual(new Set(['{"ok":false,"error":"spawn argv[1] must not contain a NUL byte"}']));
      expect(replies).toHaveLength(20);
      expect(agents.board.getState().panels).toEqual([]);
      const good = await call(server.path, { cmd: 'spawn', kind: 'command', argv: [process.execPath, fixture('command-agent.mjs'), '--say', 'hi'] });
      expect(good).toEqual({ ok: true, data: { id: 1, label: 'command command-agent.mjs', shown: true } });
      expect(await agents.service.poll(1, 10_000)).toMatchObject({ state: 'done', text: 'hi\n' });
    } finally {
      await server.close();
      agents.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
