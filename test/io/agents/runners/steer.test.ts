/**
 * Steering: a follow-up message to a running agent. ACP: queued while the
 * turn runs, then the next session/prompt of the same session in the same
 * panel; Claude: a user message on its stream-json input; command agents
 * with --stdin: a line on stdin; other kinds refuse, naming why.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { fixture, harness, type Harness } from '../../../helpers/agents.js';
import { until } from '../../../helpers/until.js';

const SLOW = { timeout: 15_000 };
let h: Harness;
afterEach(() => h?.close());

describe('steering a running agent', () => {
  it('queues a message for an ACP agent and sends it as the next prompt of the same session, in the same panel', async () => {
    h = harness();
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'acp', argv: [process.execPath, fixture('acp-ask-agent.mjs'), 'edit'], prompt: 'edit', permissions: 'ask' }, h.clock.t);
    await until(() => h.board.getState().questionOf(id) !== undefined, SLOW);
    expect(h.service.steer(id, 'also fix the docs')).toEqual({ id, delivery: 'queued' });
    expect(await h.screen(id)).toContain('queued for the next turn: also fix the docs');
    const q = h.board.getState().questionOf(id);
    h.board.getState().answer(q?.qid ?? '', '1', 'key', h.clock.t);
    const result = await h.service.poll(id, 15_000);
    expect(result?.state).toBe('done');
    expect(result?.text).toBe('Editing. Answer: allow-once.\n\nHeard: also fix the docs.');
    expect(h.board.getState().panels.map((p) => p.id)).toEqual([id]);
    expect(await h.screen(id)).toContain('you: also fix the docs');
    expect(() => h.service.steer(id, 'too late')).toThrow(`agent ${id} is not running (done)`);
  });

  it('writes a line to a command agent started with stdin, and refuses one started without', async () => {
    h = harness();
    const cat = await h.service.spawn({ cmd: 'spawn', kind: 'command', argv: [process.execPath, '-e', 'process.stdin.pipe(process.stdout)'], stdin: true }, h.clock.t);
    expect(h.service.steer(cat.id, 'hello agent')).toEqual({ id: cat.id, delivery: 'sent' });
    await until(() => h.service.peek(cat.id)?.text === 'hello agent\n', SLOW);
    const plain = await h.service.spawn({ cmd: 'spawn', kind: 'command', argv: [process.execPath, '-e', 'setTimeout(() => {}, 10000)'] }, h.clock.t);
    expect(() => h.service.steer(plain.id, 'x')).toThrow(`agent ${plain.id} takes no messages (kind command: start it with --stdin)`);
    h.board.getState().cancel(cat.id, 'test over', h.clock.t);
    h.board.getState().cancel(plain.id, 'test over', h.clock.t);
  });
});
