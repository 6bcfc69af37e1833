/**
 * The control socket's record of a lead (src/io/socket/lead-traffic.ts),
 * fed through a real control server over a real socket: the agents started
 * over it, a poll in flight or recent, and what the replies reported. The
 * board is a real one with a command agent run by the real agent service.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { createBoard } from '../../../store/board.js';
import { openAgentService } from '../../../src/io/agents/open-agent-service.js';
import { startBoardClock } from '../../../src/io/cockpit/board-clock.js';
import { call } from '../../../src/io/socket/control-client.js';
import { createLeadTraffic, WAIT_RECENT_MS } from '../../../src/io/socket/lead-traffic.js';
import { startControlServer, type ControlServer } from '../../../src/io/socket/socket-server.js';
import { testEnv } from '../../helpers/test-env.js';

const ends: (() => unknown)[] = [];
afterEach(async () => {
  for (const end of ends.splice(0).reverse()) await end();
});

async function setUp(): Promise<{ server: ControlServer; traffic: ReturnType<typeof createLeadTraffic>; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'tai-traffic-'));
  const env = testEnv({ XDG_STATE_HOME: join(dir, 'state'), XDG_RUNTIME_DIR: join(dir, 'run') });
  const board = createBoard({ drawingOff: 'test' });
  const clock = startBoardClock(board);
  const opened = openAgentService(board, env, Date.now);
  const traffic = createLeadTraffic((id) => opened.service.currentAttempt(id));
  const server = await startControlServer({ board, agents: opened.service, path: join(dir, 'run', 'c.sock'), env, traffic });
  ends.push(() => clock.stop(), () => opened.close(), () => server.close());
  return { server, traffic, dir };
}

describe("the control socket's record of a lead", () => {
  test('knows the agents started over it, a recent poll of each, and an end a poll reported', async () => {
    const { server, traffic } = await setUp();
    const gate = join(server.path, '..', 'gate');
    const spawned = await call(server.path, { cmd: 'spawn', kind: 'command', argv: ['sh', '-c', `while [ ! -e ${gate} ]; do sleep 0.05; done; echo ended`], label: 'w' });
    expect(spawned.ok).toBe(true);
    const id = spawned.ok ? (spawned.data as { id: number }).id : 0;
    expect(traffic.started(id)).toBe(true);
    expect(traffic.started(id + 1)).toBe(false);
    expect(traffic.waitingOn(id, Date.now())).toBe(false);
    const first = await call(server.path, { cmd: 'poll', id });
    expect(first.ok && first.data.finished).toBe(false);
    expect(traffic.waitingOn(id, Date.now())).toBe(true);
    expect(traffic.waitingOn(id, Date.now() + WAIT_RECENT_MS + 1)).toBe(false);
    expect(traffic.heard(id, 'done', 0)).toBe(false);
    writeFileSync(gate, '');
    // A poll that waits (as a blocking tai spawn's) answers when the agent ends.
    const last = await call(server.path, { cmd: 'poll', id, wait: 20 });
    expect(last.ok && last.data.finished).toBe(true);
    expect(traffic.heard(id, 'done', 0)).toBe(true);
  });

  test("follows a retried job: the retry is the lead's under the first id, and the first attempt's end is not the job's", async () => {
    const { server, traffic, dir } = await setUp();
    const marker = join(dir, 'tried');
    const spawned = await call(server.path, { cmd: 'spawn', kind: 'command', argv: ['sh', '-c', `if [ -e ${marker} ]; then echo second; else touch ${marker}; exit 1; fi`], label: 'r', retries: 1 });
    const id = spawned.ok ? spawned.data.id : 0;
    const last = await call(server.path, { cmd: 'poll', id, wait: 20 });
    expect(last.ok && last.data.finished && last.data.state).toBe('done');
    const rows = await call(server.path, { cmd: 'status' });
    const retry = rows.ok ? rows.data.agents.map((r) => r.id).find((r) => r !== id) : undefined;
    expect(retry).toBeDefined();
    expect(traffic.started(retry ?? 0)).toBe(true);
    expect(traffic.jobOf(retry ?? 0)).toBe(id);
    expect(traffic.superseded(id)).toBe(true);
    expect(traffic.superseded(retry ?? 0)).toBe(false);
  });
});
