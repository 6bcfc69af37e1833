import { afterEach, describe, expect, it } from 'vitest';
import { fixture, groupExists, harness, type Harness } from '../../../helpers/agents.js';
import { until } from '../../../helpers/until.js';

const cap = (mode: string): string[] => [process.execPath, fixture('cap-emitter.mjs'), mode];

let h: Harness;
afterEach(() => h?.close());

describe('the cap runner', () => {
  it('maps every CAP event of the table into the panel', async () => {
    h = harness();
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'cap', argv: cap('turn'), prompt: 'check the build' }, h.clock.t);
    const result = await h.service.poll(id, 10_000);
    expect(result).toMatchObject({ state: 'done', text: 'On it: check the build\nAll done.\n' });
    const screen = await h.screen(id);
    for (const shown of [
      'On it: check the build',
      'planning quietly',
      'two steps needed',
      '[done] look around',
      '[pending] answer',
      '⏺ shell',
      'Bearer [hidden]',
      '⎿ ok 200',
      '⏺ grep',
      '⎿ no matches',
      'permission requested: write_file',
      'asks: which branch?',
      'artifact: report.md',
      '✗ E_SOFT: a recoverable hiccup',
      'All done.',
      '✓ done',
    ]) {
      expect(screen).toContain(shown);
    }
    expect(screen).not.toContain('abcdef0123456789xyz');
    expect(h.board.getState().status(h.clock.t).agents[0]?.tokens).toBe(1_500);
  });

  it('sends cap.cancel on a soft stop', async () => {
    h = harness();
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'cap', argv: cap('hang'), prompt: 'x' }, h.clock.t);
    await until(() => (h.service.peek(id)?.text ?? '') === 'On it: x\n');
    h.board.getState().cancel(id, 'enough', h.clock.t);
    const result = await h.service.poll(id, 10_000);
    expect(result?.state).toBe('cancelled');
    expect(result?.text).toBe('[cancelled (enough); partial result]\nOn it: x\ncancelled at your request\n');
  });

  it('closes a session that ignores cap.cancel after the grace', async () => {
    h = harness();
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'cap', argv: cap('ignore-cancel'), prompt: 'x' }, h.clock.t);
    await until(() => (h.service.peek(id)?.text ?? '') === 'On it: x\n' && h.service.pgidOf(id) !== undefined);
    const pgid = h.service.pgidOf(id) as number;
    h.board.getState().cancel(id, 'enough', h.clock.t);
    h.tick(5_000);
    expect((await h.service.poll(id, 10_000))?.state).toBe('cancelled');
    await until(() => !groupExists(pgid));
  });
});
