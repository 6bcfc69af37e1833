import { afterEach, describe, expect, it } from 'vitest';
import { fixture, harness, type Harness } from '../../../helpers/agents.js';
import { until } from '../../../helpers/until.js';

const codex = (mode: string): string[] => [process.execPath, fixture('codex-emitter.mjs'), mode, 'exec', '--json'];

let h: Harness;
afterEach(() => h?.close());

describe('the codex runner', () => {
  it('maps codex exec --json items into the panel and hands back the agent messages', async () => {
    h = harness();
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'codex', argv: codex('run'), prompt: 'write a summary' }, h.clock.t);
    const result = await h.service.poll(id, 10_000);
    expect(result).toMatchObject({ state: 'done', text: 'I listed the files.\n\nSUMMARY.md is written.' });
    const screen = await h.screen(id);
    expect(screen).toContain('codex thread 0199a213');
    expect(screen).toContain('⏺ shell');
    expect(screen).toContain('bash -lc ls');
    expect(screen).toContain('⎿ README.md');
    expect(screen).toContain('**Reading** the task: write a summary');
    expect(screen).toContain('[done] list files');
    expect(screen).toContain('[todo] write summary');
    expect(screen).toContain('⏺ apply_patch');
    expect(screen).toContain('⏺ docs.search');
    expect(screen).toContain('"token":"[hidden]"');
    expect(screen).toContain('✓ done');
    expect(h.board.getState().status(h.clock.t).agents[0]?.tokens).toBe(24_885);
  });

  it('stops codex with SIGINT on a soft stop', async () => {
    h = harness();
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'codex', argv: codex('hang'), prompt: 'x' }, h.clock.t);
    await until(() => h.board.counters.events >= 4);
    h.board.getState().cancel(id, 'enough', h.clock.t);
    const result = await h.service.poll(id, 10_000);
    expect(result?.state).toBe('cancelled');
    expect(await h.screen(id)).toContain('✗ interrupted');
  });

  it('names a stop that codex answers without a final line by the stop, not by what it printed on stderr', async () => {
    h = harness();
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'codex', argv: codex('hang-quiet'), prompt: 'x' }, h.clock.t);
    await until(() => h.board.counters.events >= 4);
    h.board.getState().cancel(id, 'interrupted (Ctrl-C)', h.clock.t, 'user');
    const result = await h.service.poll(id, 10_000);
    expect(result).toMatchObject({ state: 'cancelled', exitCode: 130 });
    const screen = await h.screen(id);
    expect(screen).toContain('stopped (exit 1)');
    expect(screen).not.toContain('Reading prompt');
  });

  it('reports a failed turn', async () => {
    h = harness();
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'codex', argv: codex('fail'), prompt: 'x' }, h.clock.t);
    const result = await h.service.poll(id, 10_000);
    expect(result?.state).toBe('failed');
    expect(result?.reason).toContain('stream disconnected before completion');
  });
});
