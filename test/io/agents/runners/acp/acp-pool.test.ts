/**
 * Kept ACP sessions (docs/spec.md, "Owners and sessions") through the real
 * service and board: a fixture agent built on the real SDK that answers "pid P
 * turn N:", real process groups, the board's staged stop on a test clock.
 * Nothing sleeps: every wait is on a condition.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createBoard } from '../../../../../store/board.js';
import { openAgentService } from '../../../../../src/io/agents/open-agent-service.js';
import { ACP_SESSION_IDLE_MS, AcpSessionPool } from '../../../../../src/io/agents/runners/acp/acp-pool.js';
import { runnersWithSessions } from '../../../../../src/io/agents/runners/table.js';
import { fixture, groupExists, harness, type Harness } from '../../../../helpers/agents.js';
import { until, type Wait } from '../../../../helpers/until.js';

/** The deadline these ACP tests have always had, longer than the default. */
const ACP_WAIT: Wait = { timeout: 15_000 };

const AGENT = [process.execPath, fixture('acp-session-agent.mjs')];

let h: Harness;
let pool: AcpSessionPool;
afterEach(async () => {
  await pool?.close();
  h?.close();
});

/** A harness whose acp runner keeps sessions in `pool` (on the harness's clock). */
function rig(options: { maxIdle?: number; idleMs?: number; realTime?: boolean } = {}): void {
  pool = new AcpSessionPool({
    now: options.realTime ? Date.now : () => h.clock.t,
    ...(options.maxIdle === undefined ? {} : { maxIdle: options.maxIdle }),
    ...(options.idleMs === undefined ? {} : { idleMs: options.idleMs }),
  });
  h = harness({ runners: runnersWithSessions(pool) });
}

/** Spawns one acp turn; `session` names the kept session, if any. */
async function spawnTurn(prompt: string, session?: string, extra: { cwd?: string; timeout?: number } = {}): Promise<number> {
  const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'acp', argv: AGENT, prompt, ...(session === undefined ? {} : { session }), ...extra }, h.clock.t);
  return id;
}

/** Runs a turn to its end and returns its result. */
async function runTurn(prompt: string, session?: string, extra: { cwd?: string } = {}): Promise<{ id: number; text: string; state: string; pid: number }> {
  const id = await spawnTurn(prompt, session, extra);
  const result = await h.service.poll(id, 15_000);
  const text = result?.text ?? '';
  return { id, text, state: result?.state ?? 'none', pid: pidIn(text) };
}

function pidIn(text: string): number {
  return Number(/pid (\d+) turn/.exec(text)?.[1] ?? NaN);
}

const textOf = (id: number): string => h.service.peek(id)?.text ?? '';

describe('kept ACP sessions', () => {
  it('runs two turns with the same key in one process, the second continuing the conversation', async () => {
    rig();
    const first = await runTurn('hello', 'k');
    expect(first).toMatchObject({ state: 'done', text: `pid ${first.pid} turn 1: hello` });
    const short = `s${first.pid}x1`.slice(0, 8);
    expect(await h.screen(first.id)).toContain(`new session ${short}`);
    expect(pool.size).toEqual({ idle: 1, busy: 0 });
    expect(groupExists(first.pid)).toBe(true);

    const second = await runTurn('again', 'k');
    expect(second).toMatchObject({ state: 'done', text: `pid ${first.pid} turn 2: again` });
    expect(h.service.pgidOf(second.id)).toBe(first.pid);
    expect(await h.screen(second.id)).toContain(`continues session ${short} (turn 2)`);
  });

  it('starts a process per key, per directory and per unkeyed spawn; an unkeyed one ends with its turn', async () => {
    rig();
    const a = await runTurn('one', 'a');
    const b = await runTurn('two', 'b');
    const elsewhere = await runTurn('three', 'a', { cwd: h.dir });
    const plain = await runTurn('four');
    expect(new Set([a.pid, b.pid, elsewhere.pid, plain.pid]).size).toBe(4);
    expect([a.text, b.text, elsewhere.text, plain.text].map((t) => t.split(':')[0])).toEqual([
      `pid ${a.pid} turn 1`,
      `pid ${b.pid} turn 1`,
      `pid ${elsewhere.pid} turn 1`,
      `pid ${plain.pid} turn 1`,
    ]);
    // Without a key the agent ends with its turn, as always, and says nothing of sessions.
    expect(groupExists(plain.pid)).toBe(false);
    expect(await h.screen(plain.id)).not.toContain('session');
    expect(pool.size).toEqual({ idle: 3, busy: 0 });
    expect((await runTurn('five', 'a')).text).toBe(`pid ${a.pid} turn 2: five`);
  });

  it('ends a turn whose agent honours session/cancel as cancelled and keeps its session', async () => {
    rig();
    const id = await spawnTurn('slow count', 'k');
    await until(() => textOf(id).includes('tick 2.'), ACP_WAIT);
    h.board.getState().cancel(id, 'enough', h.clock.t, 'user');
    const result = await h.service.poll(id, 15_000);
    expect(result?.state).toBe('cancelled');
    expect(result?.text.endsWith('stopping.')).toBe(true);
    const pid = pidIn(result?.text ?? '');
    expect(pool.size).toEqual({ idle: 1, busy: 0 });
    expect((await runTurn('next', 'k')).text).toBe(`pid ${pid} turn 2: next`);
  });

  it('kills an agent that ignores the cancel after the grace, and the next turn starts a new process', async () => {
    rig();
    const id = await spawnTurn('ignore me', 'k');
    await until(() => textOf(id).includes('tick 1.') && h.service.pgidOf(id) !== undefined, ACP_WAIT);
    const pid = h.service.pgidOf(id) as number;
    h.board.getState().cancel(id, 'enough', h.clock.t, 'user');
    const before = textOf(id).length;
    await until(() => textOf(id).length > before + 40, ACP_WAIT);
    expect(h.service.peek(id)?.finished).toBe(false);
    h.tick(5_000);
    expect((await h.service.poll(id, 15_000))?.state).toBe('cancelled');
    await until(() => !groupExists(pid), ACP_WAIT);
    expect(pool.size).toEqual({ idle: 0, busy: 0 });
    const next = await runTurn('fresh', 'k');
    expect(next.pid).not.toBe(pid);
    expect(next.text).toBe(`pid ${next.pid} turn 1: fresh`);
  });

  it('drops the session of an agent that crashed or failed its turn, and the next turn starts fresh', async () => {
    rig();
    const crashed = await runTurn('crash now', 'k');
    expect(crashed.state).toBe('failed');
    expect(h.service.peek(crashed.id)?.reason).toContain('the agent exited mid-turn');
    expect(groupExists(crashed.pid)).toBe(false);

    const failed = await runTurn('fail please', 'k');
    expect(failed.state).toBe('failed');
    expect(failed.pid).not.toBe(crashed.pid);
    expect(h.service.peek(failed.id)?.reason).toContain('the model refused to go on');
    // The agent was still alive after its error: closing the session killed it.
    expect(groupExists(failed.pid)).toBe(false);

    const next = await runTurn('hello', 'k');
    expect(next).toMatchObject({ state: 'done', text: `pid ${next.pid} turn 1: hello` });
    expect([crashed.pid, failed.pid]).not.toContain(next.pid);
  });

  it('drops the session of a turn that ran out of its wall clock, though the agent honoured the cancel', async () => {
    rig();
    const id = await spawnTurn('slow and long', 'k', { timeout: 30 });
    await until(() => textOf(id).includes('tick 1.') && h.service.pgidOf(id) !== undefined, ACP_WAIT);
    const pid = h.service.pgidOf(id) as number;
    h.tick(30_000);
    const result = await h.service.poll(id, 15_000);
    expect(result?.state).toBe('timeout');
    expect(result?.text.endsWith('stopping.')).toBe(true);
    await until(() => !groupExists(pid), ACP_WAIT);
    expect(pool.size).toEqual({ idle: 0, busy: 0 });
  });

  it('closes idle sessions after the idle time, and the oldest past the idle limit', async () => {
    rig({ maxIdle: 2 });
    const a = await runTurn('one', 'a');
    const b = await runTurn('two', 'b');
    const c = await runTurn('three', 'c');
    // Three idle, the limit two: the oldest (a) is closed.
    await until(() => !groupExists(a.pid), ACP_WAIT);
    expect(pool.size).toEqual({ idle: 2, busy: 0 });
    expect(pool.expire(h.clock.t + ACP_SESSION_IDLE_MS - 60_000)).toBe(0);
    expect(pool.expire(h.clock.t + ACP_SESSION_IDLE_MS)).toBe(2);
    await until(() => !groupExists(b.pid) && !groupExists(c.pid), ACP_WAIT);
    expect(pool.size).toEqual({ idle: 0, busy: 0 });
  });

  it('closes an idle session on its own timer once the idle time has passed', async () => {
    rig({ idleMs: 50, realTime: true });
    const a = await runTurn('one', 'a');
    await until(() => !groupExists(a.pid), ACP_WAIT);
    expect(pool.size).toEqual({ idle: 0, busy: 0 });
  });

  it('leaves no process behind when the pool closes, idle or mid-turn', async () => {
    rig();
    const idle = await runTurn('one', 'a');
    const busy = await spawnTurn('slow forever', 'b');
    await until(() => textOf(busy).includes('tick 1.') && h.service.pgidOf(busy) !== undefined, ACP_WAIT);
    const busyPid = h.service.pgidOf(busy) as number;
    await pool.close();
    expect(groupExists(idle.pid)).toBe(false);
    expect(groupExists(busyPid)).toBe(false);
    const result = await h.service.poll(busy, 15_000);
    expect(result).toMatchObject({ state: 'failed', reason: expect.stringContaining('the session was closed') });
    // A closed pool keeps nothing: a later keyed turn runs and ends with its process.
    const late = await runTurn('late', 'a');
    expect(late.state).toBe('done');
    await until(() => !groupExists(late.pid), ACP_WAIT);
  });
});

describe('the sessions of a cockpit or tai spawn (openAgentService)', () => {
  it('keeps keyed ACP sessions between spawns and ends them on close', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tai-open-sessions-'));
    const opened = openAgentService(createBoard(), { XDG_STATE_HOME: dir, PATH: process.env['PATH'] ?? '' });
    try {
      const turn = async (prompt: string): Promise<string> => {
        const { id } = await opened.service.spawn({ cmd: 'spawn', kind: 'acp', argv: AGENT, prompt, session: 'k' }, Date.now());
        return (await opened.service.poll(id, 15_000))?.text ?? '';
      };
      const pid = pidIn(await turn('one'));
      expect(await turn('two')).toBe(`pid ${pid} turn 2: two`);
      opened.close();
      await until(() => !groupExists(pid), ACP_WAIT);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
