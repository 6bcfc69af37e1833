import { afterEach, describe, expect, it } from 'vitest';
import { fixture, groupExists, harness, type Harness } from '../../../../helpers/agents.js';
import { until, type Wait } from '../../../../helpers/until.js';

/** The deadline these ACP tests have always had, longer than the default. */
const ACP_WAIT: Wait = { timeout: 15_000 };
const acpAgent = (mode: string): string[] => [process.execPath, fixture('acp-agent.mjs'), mode];

let h: Harness;
afterEach(() => h?.close());

describe('the acp runner against an agent built on the real SDK', () => {
  it('streams chunks, a thought, a tool call, a plan and usage into the panel and rejects permission by default', async () => {
    h = harness();
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'acp', argv: acpAgent('script'), prompt: 'summarise the readme', label: 'acp' }, h.clock.t);
    const result = await h.service.poll(id, 15_000);
    expect(result).toMatchObject({ state: 'done', exitCode: 0, text: 'You asked: summarise the readme. \n\nPermission: no. Done.' });
    const screen = await h.screen(id);
    expect(screen).toContain('Thinking about it.\nYou asked: summarise the readme.');
    expect(screen).toContain('⏺ read_file');
    expect(screen).toContain('"api_key":"[hidden]"');
    expect(screen).not.toContain('sk-abcdefghijklmnopqrstuvwx');
    expect(screen).toContain('⎿ # tai');
    expect(screen).toContain('[completed] read the readme');
    expect(screen).toContain('[in_progress] write the summary');
    expect(screen).toContain('permission asked for write_file: rejected (Reject); --allow accepts');
    expect(screen).toContain('✓ done');
    expect(h.board.getState().status(h.clock.t).agents[0]?.tokens).toBe(1234);
  });

  it('accepts permission requests with allow', async () => {
    h = harness();
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'acp', argv: acpAgent('script'), prompt: 'go', allow: true }, h.clock.t);
    expect((await h.service.poll(id, 15_000))?.text).toBe('You asked: go. \n\nPermission: yes. Done.');
    expect(await h.screen(id)).toContain('permission asked for write_file: allowed (Allow)');
  });

  it('stops softly with session/cancel and the agent ends its turn cancelled', async () => {
    h = harness();
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'acp', argv: acpAgent('slow'), prompt: 'count' }, h.clock.t);
    await until(() => (h.service.peek(id)?.text ?? '').includes('tick 2.'), ACP_WAIT);
    h.board.getState().cancel(id, 'enough', h.clock.t);
    const result = await h.service.poll(id, 15_000);
    expect(result?.state).toBe('cancelled');
    expect(result?.text.startsWith('[cancelled (enough); partial result]\ntick 0. tick 1. tick 2.')).toBe(true);
    expect(result?.text.endsWith('stopping.')).toBe(true);
  });

  it('kills an agent that ignores session/cancel after the grace, with its whole group', async () => {
    h = harness();
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'acp', argv: acpAgent('ignore-cancel'), prompt: 'count' }, h.clock.t);
    await until(() => (h.service.peek(id)?.text ?? '').includes('tick 1.') && h.service.pgidOf(id) !== undefined, ACP_WAIT);
    const pgid = h.service.pgidOf(id) as number;
    h.board.getState().cancel(id, 'enough', h.clock.t);
    const before = h.service.peek(id)?.text.length ?? 0;
    await until(() => (h.service.peek(id)?.text.length ?? 0) > before + 40, ACP_WAIT);
    expect(h.service.peek(id)?.finished).toBe(false);
    h.tick(5_000);
    const result = await h.service.poll(id, 15_000);
    expect(result?.state).toBe('cancelled');
    expect(result?.text).toContain('partial result]\ntick 0. tick 1.');
    await until(() => !groupExists(pgid), ACP_WAIT);
  });

  it('reports a rate limit as a failure that says so', async () => {
    h = harness();
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'acp', argv: acpAgent('rate-limit'), prompt: 'x' }, h.clock.t);
    const result = await h.service.poll(id, 15_000);
    expect(result?.state).toBe('failed');
    expect(result?.reason).toContain('rate limited: Rate limit exceeded: try again in 30s');
    expect(await h.screen(id)).toContain('✗ rate limited: Rate limit exceeded');
  });

  it('reports a lost transport (the agent died mid-turn) as a failure with the partial text', async () => {
    h = harness();
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'acp', argv: acpAgent('lost'), prompt: 'x' }, h.clock.t);
    const result = await h.service.poll(id, 15_000);
    expect(result).toMatchObject({ state: 'failed', text: 'half an answer' });
    expect(result?.reason).toContain('the agent exited mid-turn (ACP connection closed)');
  });

  it('counts one tool for a tool_call sent twice with one id, shows its real title, parts the text around it and takes the tokens of the prompt response', async () => {
    h = harness();
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'acp', argv: acpAgent('twice'), prompt: 'x' }, h.clock.t);
    const result = await h.service.poll(id, 15_000);
    expect(result).toMatchObject({ state: 'done', text: 'I will run a command.\n\nThe tool printed tai-tool-ok.' });
    const row = h.board.getState().status(h.clock.t).agents[0];
    expect(row).toMatchObject({ tools: 1, tokens: 2580 });
    const screen = await h.screen(id);
    expect(screen).toContain('⎿ Terminal is `echo tai-tool-ok` {"command":"echo tai-tool-ok"}');
  });

  it('shows the title and command a tool_call_update adds, once', async () => {
    h = harness();
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'acp', argv: acpAgent('update-title'), prompt: 'x' }, h.clock.t);
    await h.service.poll(id, 15_000);
    const screen = await h.screen(id);
    expect(screen.match(/⎿ bash is ls \{"command":"ls"\}/g)).toHaveLength(1);
    expect(h.board.getState().status(h.clock.t).agents[0]?.tools).toBe(1);
  });

  it("takes the tokens of Gemini's prompt response (_meta.quota.token_count)", async () => {
    h = harness();
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'acp', argv: acpAgent('quota'), prompt: 'x' }, h.clock.t);
    await h.service.poll(id, 15_000);
    expect(h.board.getState().status(h.clock.t).agents[0]?.tokens).toBe(2580);
  });

  it('fails a turn that ends end_turn after a session_info_update said it failed (codex-acp), as the model service', async () => {
    h = harness();
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'acp', argv: acpAgent('info-error'), prompt: 'x' }, h.clock.t);
    const result = await h.service.poll(id, 15_000);
    expect(result?.state).toBe('failed');
    expect(result?.reason).toContain('model service down: We’re currently experiencing high demand');
  });

  it("says what a JSON-RPC error's data says, not only 'Internal error'", async () => {
    h = harness();
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'acp', argv: acpAgent('rpc-data'), prompt: 'x' }, h.clock.t);
    const result = await h.service.poll(id, 15_000);
    expect(result?.reason).toContain('rate limited: Internal error: exceeded retry limit, last status: 429 Too Many Requests');
  });

  it('cancels a silent agent after 300 s without an event', async () => {
    h = harness();
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'acp', argv: acpAgent('silent'), prompt: 'x' }, h.clock.t);
    await until(() => (h.service.peek(id)?.text ?? '') === 'thinking silently', ACP_WAIT);
    h.tick(300_000);
    // It ignores session/cancel (it never reads again): hard stop after the grace.
    h.tick(5_000);
    const result = await h.service.poll(id, 15_000);
    expect(result?.state).toBe('cancelled');
    expect(result?.reason).toBe('no event for 300s');
    expect(result?.text).toBe('[cancelled (no event for 300s); partial result]\nthinking silently');
  });
});
