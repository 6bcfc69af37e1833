/**
 * The control socket's record of a lead (src/io/socket/lead-traffic.ts) stays
 * bounded: a real control server over a real socket, a real board with
 * command agents run by the real agent service, and the wake-up wired as
 * `tai --wake` wires it (src/io/lead/wake-wiring.ts), its delays set to none
 * through the environment. Every wait is on a condition.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { createBoard } from '../../../store/board.js';
import { openAgentService } from '../../../src/io/agents/open-agent-service.js';
import { startBoardClock } from '../../../src/io/cockpit/board-clock.js';
import { wireLeadWake } from '../../../src/io/lead/wake-wiring.js';
import { call } from '../../../src/io/socket/control-client.js';
import { createLeadTraffic } from '../../../src/io/socket/lead-traffic.js';
import { startControlServer } from '../../../src/io/socket/socket-server.js';
import { testEnv } from '../../helpers/test-env.js';
import { until } from '../../helpers/until.js';

const ends: (() => unknown)[] = [];
afterEach(async () => {
  for (const end of ends.splice(0).reverse()) await end();
});

/** How many agents a wake line tells: the one it names and `and N more`. */
function told(line: string): number {
  const more = /and (\d+) more/.exec(line);
  return 1 + (more ? Number(more[1]) : 0);
}

describe("the control socket's record of a lead, bounded", () => {
  test('holds none of the many agents a lead started once all ended, and each end still reaches the lead once: typed, or heard by its poll', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tai-traffic-'));
    const env = testEnv({
      XDG_STATE_HOME: join(dir, 'state'),
      XDG_RUNTIME_DIR: join(dir, 'run'),
      TAI_WAKE_QUIET_OUTPUT_MS: '0',
      TAI_WAKE_QUIET_KEYS_MS: '0',
      TAI_WAKE_GAP_MS: '0',
    });
    const board = createBoard({ drawingOff: 'test' });
    const clock = startBoardClock(board);
    const opened = openAgentService(board, env, Date.now);
    const traffic = createLeadTraffic((id) => opened.service.currentAttempt(id));
    const server = await startControlServer({ board, agents: opened.service, path: join(dir, 'run', 'c.sock'), env, traffic });
    const typed: string[] = [];
    const wake = wireLeadWake(traffic, { board, env, now: Date.now, log: () => {}, type: (text) => typed.push(text) });
    ends.push(() => clock.stop(), () => wake.stop(), () => opened.close(), () => server.close());

    let polled = 0;
    let unpolled = 0;
    // Three rounds of eight (the agent cap), each ending when its gate opens; every other agent's end is reported by a poll in flight then.
    for (let round = 0; round < 3; round++) {
      const gate = join(dir, `gate-${round}`);
      const ids: number[] = [];
      for (let i = 0; i < 8; i++) {
        const spawned = await call(server.path, { cmd: 'spawn', kind: 'command', argv: ['sh', '-c', `while [ ! -e ${gate} ]; do sleep 0.05; done`], label: `w${round}-${i}` });
        expect(spawned.ok).toBe(true);
        if (spawned.ok) ids.push(spawned.data.id);
      }
      const polls = ids.filter((_, i) => i % 2 === 0).map((id) => call(server.path, { cmd: 'poll', id, wait: 20 }));
      polled += polls.length;
      unpolled += ids.length - polls.length;
      await until(() => ids.every((id, i) => i % 2 !== 0 || traffic.waitingOn(id, Date.now())), { what: 'the polls in flight' });
      writeFileSync(gate, '');
      for (const last of await Promise.all(polls)) expect(last.ok && last.data.finished).toBe(true);
      await until(() => board.getState().live === 0, { what: 'the round ended' });
    }
    await until(() => typed.filter((t) => t !== '\r').reduce((n, line) => n + told(line), 0) >= unpolled && traffic.size === 0, {
      what: 'every unpolled end typed and the record empty',
      explain: () => JSON.stringify({ typed, size: traffic.size }),
    });
    expect(polled).toBe(12);
    expect(typed.filter((t) => t !== '\r').reduce((n, line) => n + told(line), 0)).toBe(unpolled);
    expect(traffic.size).toBe(0);
    expect(traffic.started(1)).toBe(false);
  });
});
