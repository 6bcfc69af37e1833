/**
 * Claude Code's permission prompts over stdio (`--permission-prompt-tool
 * stdio`): a stand-in that sends can_use_tool exactly as Claude does
 * (test/fixtures/claude-asker.mjs) and checks the control_response it gets
 * against the Claude Agent SDK's shape; its result is that response line.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { fixture, harness, type Harness } from '../../../helpers/agents.js';
import { until } from '../../../helpers/until.js';

const SLOW = { timeout: 15_000 };
const claude = (mode = 'once'): string[] => [process.execPath, fixture('claude-asker.mjs'), mode, '-p', '--output-format', 'stream-json', '--verbose', '--input-format', 'stream-json'];

let h: Harness;
afterEach(() => h?.close());

async function questionOf(id: number) {
  await until(() => h.board.getState().questionOf(id) !== undefined, SLOW);
  const q = h.board.getState().questionOf(id);
  if (!q) throw new Error('no question');
  return q;
}

describe('the claude kind asks through the question queue', () => {
  it('shows the Edit as a diff and answers allow with its input', async () => {
    h = harness();
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'claude', argv: claude(), prompt: 'edit', permissions: 'ask' }, h.clock.t);
    const q = await questionOf(id);
    expect(q).toMatchObject({ tool: 'Edit', options: [{ id: 'allow' }, { id: 'allow-always' }, { id: 'deny' }] });
    const screen = await h.screen(id);
    expect(screen).toContain('- world');
    expect(screen).toContain('+ there');
    h.board.getState().answer(q.qid, 'y', 'key', h.clock.t);
    const result = await h.service.poll(id, 15_000);
    expect(result?.state).toBe('done');
    expect(result?.text).toBe(
      '{"type":"control_response","response":{"subtype":"success","request_id":"req-1","response":{"behavior":"allow","updatedInput":{"file_path":"/repo/notes.txt","old_string":"hello\\nworld","new_string":"hello\\nthere"},"toolUseID":"toolu_1"}}}',
    );
  });

  it('answers deny with a message', async () => {
    h = harness();
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'claude', argv: claude(), prompt: 'edit', permissions: 'ask' }, h.clock.t);
    const q = await questionOf(id);
    h.board.getState().answer(q.qid, 'n', 'key', h.clock.t);
    const result = await h.service.poll(id, 15_000);
    expect(result?.text).toBe(
      '{"type":"control_response","response":{"subtype":"success","request_id":"req-1","response":{"behavior":"deny","message":"denied by the user (key)","toolUseID":"toolu_1"}}}',
    );
  });

  it('sends the suggestions as updatedPermissions on "allow always" and answers the next Edit itself', async () => {
    h = harness();
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'claude', argv: claude('twice'), prompt: 'edit', permissions: 'ask' }, h.clock.t);
    const q = await questionOf(id);
    h.board.getState().answer(q.qid, '2', 'key', h.clock.t);
    const result = await h.service.poll(id, 15_000);
    const [first, second] = (result?.text ?? '').split('\n').map((l) => JSON.parse(l));
    expect(first.response.response.updatedPermissions).toEqual([{ type: 'addRules', rules: [{ toolName: 'Edit' }], behavior: 'allow', destination: 'session' }]);
    expect(second.response).toMatchObject({ request_id: 'req-2', response: { behavior: 'allow', toolUseID: 'toolu_2' } });
    expect(h.board.getState().questions(h.clock.t)).toEqual([]);
  });

  it('denies at once under the reject policy', async () => {
    h = harness();
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'claude', argv: claude(), prompt: 'edit', permissions: 'reject' }, h.clock.t);
    const result = await h.service.poll(id, 15_000);
    expect(JSON.parse(result?.text ?? '{}').response.response).toEqual({ behavior: 'deny', message: 'denied by tai (permissions reject)', toolUseID: 'toolu_1' });
  });
});
