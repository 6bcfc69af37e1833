import { afterEach, describe, expect, it } from 'vitest';
import { fixture, groupExists, harness, type Harness } from '../../../helpers/agents.js';
import { until } from '../../../helpers/until.js';

const claude = (mode: string): string[] => [
  process.execPath,
  fixture('claude-emitter.mjs'),
  mode,
  '-p',
  '--output-format',
  'stream-json',
  '--verbose',
  '--input-format',
  'stream-json',
];

let h: Harness;
afterEach(() => h?.close());

describe('the claude runner replaying recorded stream-json', () => {
  it('maps every line type into the panel and hands back the final result', async () => {
    h = harness();
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'claude', argv: claude('replay'), prompt: 'summarise the repo' }, h.clock.t);
    const result = await h.service.poll(id, 10_000);
    expect(result).toMatchObject({ state: 'done', exitCode: 0, text: 'The repository is demo/tai: a terminal cockpit.' });
    const screen = await h.screen(id);
    expect(screen).toContain('claude claude-sonnet-4-5-20250929 · session');
    expect(screen).toContain('Task: summarise the repo.');
    expect(screen).toContain('The user wants a summary of the README. Read it first.\nI\'ll read the');
    expect(screen).toContain("I'll read the README first.");
    expect(screen).toContain('⏺ Bash');
    expect(screen).toContain('GITHUB_TOKEN=[hidden] gh repo view');
    expect(screen).not.toContain('ghp_abcdefghij');
    expect(screen).toContain('⎿ name:');
    expect(screen).toContain('⏺ Read');
    expect(screen).toContain('File does not exist.');
    expect(screen).toContain('API retry 1/10 after HTTP 429 (rate_limit)');
    expect(screen).toContain('rate limit: allowed_warning (five_hour)');
    expect(screen).toContain('✓ done');
    expect(h.board.getState().status(h.clock.t).agents[0]?.tokens).toBe(195);
  });

  it('interrupts the turn with the control request on a soft stop', async () => {
    h = harness();
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'claude', argv: claude('hang'), prompt: 'x' }, h.clock.t);
    await until(() => h.board.getState().status(h.clock.t).agents[0]?.tools === 1 && (h.service.peek(id)?.text ?? '').includes('README first'));
    h.board.getState().cancel(id, 'enough', h.clock.t);
    const result = await h.service.poll(id, 10_000);
    expect(result?.state).toBe('cancelled');
    expect(result?.text).toBe("[cancelled (enough); partial result]\nTask: x. I'll read the README first.");
  });

  it('kills a session that ignores the interrupt after the grace', async () => {
    h = harness();
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'claude', argv: claude('ignore-interrupt'), prompt: 'x' }, h.clock.t);
    await until(() => (h.service.peek(id)?.text ?? '').includes('README first') && h.service.pgidOf(id) !== undefined);
    const pgid = h.service.pgidOf(id) as number;
    h.board.getState().cancel(id, 'enough', h.clock.t);
    h.tick(5_000);
    const result = await h.service.poll(id, 10_000);
    expect(result?.state).toBe('cancelled');
    await until(() => !groupExists(pgid));
  });

  it('reports a rate-limited run as failed with the HTTP status', async () => {
    h = harness();
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'claude', argv: claude('rate-limit'), prompt: 'x' }, h.clock.t);
    const result = await h.service.poll(id, 10_000);
    expect(result?.state).toBe('failed');
    expect(result?.reason).toContain('rate limited: HTTP 429: API Error: 429 rate_limit_error');
    expect(result?.reason).not.toContain('success');
    expect(await h.screen(id)).toContain('API retry 2/2 after HTTP 429');
  });
});
