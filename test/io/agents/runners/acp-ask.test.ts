/**
 * The `ask` permission policy against ACP agents built on the real SDK
 * (test/fixtures/acp-ask-agent.mjs): the question reaches the board's queue
 * and the panel, the answer goes back to the agent, "always" is remembered,
 * the heartbeat is paused while asking, a default answers after its timeout,
 * and a cancel answers an open question `cancelled`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ORCH_IDLE_KILL } from '../../../../src/core/policy.js';
import { fixture, harness, type Harness } from '../../../helpers/agents.js';
import { screenRows } from '../../../../src/io/terminal/screen-rows.js';
import type { XtermScreen } from '../../../../src/io/terminal/screen.js';
import { until, type Wait } from '../../../helpers/until.js';

const ACP_WAIT: Wait = { timeout: 15_000 };
const askAgent = (mode: string): string[] => [process.execPath, fixture('acp-ask-agent.mjs'), mode];

let h: Harness;
afterEach(() => h?.close());

/** Waits until the board holds an open question for panel `id` and returns it. */
async function questionOf(id: number) {
  await until(() => h.board.getState().questionOf(id) !== undefined, ACP_WAIT);
  const q = h.board.getState().questionOf(id);
  if (!q) throw new Error('no question');
  return q;
}

describe('the ask policy for ACP agents', () => {
  it('shows the question in the panel, waits for you, and sends the chosen option back', async () => {
    h = harness();
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'acp', argv: askAgent('edit'), prompt: 'edit', permissions: 'ask' }, h.clock.t);
    const q = await questionOf(id);
    expect(q).toMatchObject({ tool: 'Edit notes.txt', toolKind: 'edit', options: [{ id: 'allow-once' }, { id: 'allow-always' }, { id: 'reject-once' }, { id: 'reject-always' }] });
    const screen = await h.screen(id);
    expect(screen).toContain(`? ${q.qid} permission: Edit notes.txt (edit)`);
    expect(screen).toContain('path: notes.txt');
    expect(screen).toContain('1  Allow once [allow once]');
    expect(screen).toContain('4  Reject always [reject always]');
    expect(h.board.getState().panels.find((p) => p.id === id)?.header).toContain('? acp');
    expect(h.board.getState().panels.find((p) => p.id === id)?.header).toContain('waiting for you');
    expect(h.board.getState().asking).toBe(1);
    expect(h.board.getState().status(h.clock.t).totals.asking).toBe(1);

    expect(h.board.getState().answer(q.qid, '3', 'key', h.clock.t)).toMatchObject({ qid: q.qid, option: { id: 'reject-once' } });
    expect((await h.service.poll(id, 15_000))?.text).toBe('Editing. Answer: reject-once.');
    expect(await h.screen(id)).toContain(`✓ ${q.qid} answered: Reject (key)`);
    expect(h.board.getState().asking).toBe(0);
  });

  it('shows the diff a tool call carries, its removed and added lines coloured', async () => {
    h = harness();
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'acp', argv: askAgent('diff'), prompt: 'edit', permissions: 'ask' }, h.clock.t);
    const q = await questionOf(id);
    await h.screen(id);
    const screen = h.board.getState().screenOf(id) as XtermScreen;
    const rows = screen.text();
    expect(rows).toContain('  src/app.ts @ line 2');
    expect(rows).toContain('  - const b = 2;');
    expect(rows).toContain('  + const b = 20;');
    // The added line is green (32) and the removed red (31) in the screen's cells.
    const coded = screenRows(screen.term).join('\n');
    expect(coded).toMatch(/\x1b\[[0-9;]*32m {2}\+ const b = 20;/);
    expect(coded).toMatch(/\x1b\[[0-9;]*31m {2}- const b = 2;/);
    h.board.getState().answer(q.qid, 'y', 'key', h.clock.t);
    expect((await h.service.poll(id, 15_000))?.text).toBe('Answer: allow-once.');
  });

  it('remembers an "always" answer for the session and answers the next request of that kind without asking', async () => {
    h = harness();
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'acp', argv: askAgent('again'), prompt: 'edit', permissions: 'ask' }, h.clock.t);
    const q = await questionOf(id);
    h.board.getState().answer(q.qid, 'allow-always', 'key', h.clock.t);
    expect((await h.service.poll(id, 15_000))?.text).toBe('Answers: allow-always, allow-always.');
    expect(await h.screen(id)).toContain('permission asked for Edit other.txt: Allow always (remembered');
  });

  it('pauses the heartbeat while asking: no idle stop after 300 s, and it starts again from the answer', async () => {
    h = harness();
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'acp', argv: askAgent('edit'), prompt: 'edit', permissions: 'ask', timeout: 3600 }, h.clock.t);
    const q = await questionOf(id);
    h.tick(ORCH_IDLE_KILL + 60_000);
    expect(h.board.getState().panels.find((p) => p.id === id)?.state).toBe('asking');
    const answeredAt = h.clock.t;
    h.board.getState().answer(q.qid, 'n', 'key', h.clock.t);
    expect(h.board.getState().status(h.clock.t).agents.find((a) => a.id === id)?.lastEventAt).toBe(answeredAt);
    expect((await h.service.poll(id, 15_000))?.text).toBe('Editing. Answer: reject-once.');
  });

  it('answers the default after the ask timeout', async () => {
    h = harness();
    const { id } = await h.service.spawn(
      { cmd: 'spawn', kind: 'acp', argv: askAgent('edit'), prompt: 'edit', permissions: 'ask', ask_timeout: 30, ask_default: 'allow' },
      h.clock.t,
    );
    const q = await questionOf(id);
    h.tick(29_000);
    expect(h.board.getState().questionOf(id)).toBeDefined();
    h.tick(1_000);
    expect(h.board.getState().questionOf(id)).toBeUndefined();
    expect((await h.service.poll(id, 15_000))?.text).toBe('Editing. Answer: allow-once.');
    expect(await h.screen(id)).toContain(`✓ ${q.qid} answered: Allow once (default after 30s)`);
    expect(() => h.board.getState().answer(q.qid, '1', 'key', h.clock.t)).toThrow(`question ${q.qid} was already answered (Allow once, by default after 30s)`);
  });

  it('answers an open question cancelled when the agent is cancelled, and refuses a late answer naming why', async () => {
    h = harness();
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'acp', argv: askAgent('edit'), prompt: 'edit', permissions: 'ask' }, h.clock.t);
    const q = await questionOf(id);
    expect(h.board.getState().cancel(id, 'cancelled by request (tai cancel)', h.clock.t, 'user')).toBe(true);
    const result = await h.service.poll(id, 15_000);
    expect(result?.state).toBe('cancelled');
    expect(result?.text).toContain('Editing. Answer: cancelled.');
    expect(h.board.getState().questions(h.clock.t)).toEqual([]);
    expect(() => h.board.getState().answer(q.qid, '1', 'key', h.clock.t)).toThrow(
      `question ${q.qid} was cancelled: its agent was stopped (cancelled by request (tai cancel))`,
    );
  });

  it('shows one question of a flooding agent, queues 15 behind it and refuses the rest as a flood', async () => {
    h = harness();
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'acp', argv: askAgent('flood'), prompt: 'flood', permissions: 'ask' }, h.clock.t);
    await until(() => h.board.getState().questions(h.clock.t).length === 16, ACP_WAIT);
    const rows = h.board.getState().questions(h.clock.t);
    expect(rows.filter((r) => r.open)).toHaveLength(1);
    expect(rows[0]?.flooded).toBe(4);
    expect(await h.screen(id)).toContain('question flood: 16 questions wait already; 1 refused');
    for (let i = 0; i < 16; i++) {
      const open = h.board.getState().questionOf(id);
      if (!open) throw new Error('no open question');
      h.board.getState().answer(open.qid, '1', 'key', h.clock.t);
    }
    expect((await h.service.poll(id, 15_000))?.text).toBe('Answers: allow-once=16 reject-once=4.');
  });

  it('rejects at once without asking under the reject policy', async () => {
    h = harness();
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'acp', argv: askAgent('edit'), prompt: 'edit', permissions: 'reject' }, h.clock.t);
    expect((await h.service.poll(id, 15_000))?.text).toBe('Editing. Answer: reject-once.');
    expect(h.board.getState().questions(h.clock.t)).toEqual([]);
  });
});
