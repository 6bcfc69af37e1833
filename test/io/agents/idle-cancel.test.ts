import { afterEach, describe, expect, it } from 'vitest';
import { ORCH_IDLE_KILL } from '../../../src/core/policy.js';
import { fixture, harness, type Harness } from '../../helpers/agents.js';
import { until } from '../../helpers/until.js';

const agent = (...args: string[]): string[] => [process.execPath, fixture('command-agent.mjs'), ...args];

let h: Harness | undefined;
afterEach(() => {
  h?.close();
  h = undefined;
});

describe("a spawn's own silence limit (idle_cancel)", () => {
  it('cancels a silent agent after its own 90 s, not the default 300 s, and says so in the status and the footer', async () => {
    h = harness();
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'command', argv: agent('--say', 'compiling', '--linger'), idle_cancel: 90 }, h.clock.t);
    await until(() => h?.service.peek(id)?.text.includes('waiting') ?? false);
    const heardAt = h.board.getState().status(h.clock.t).agents[0]?.lastEventAt ?? h.clock.t;
    expect(h.board.getState().status(h.clock.t).agents[0]?.idleCancelMs).toBe(90_000);
    h.clock.t = heardAt + 89_000;
    h.board.getState().tick(h.clock.t);
    // The 60 s idle display stays.
    expect(h.board.getState().status(h.clock.t).agents[0]?.state).toBe('idle');
    h.clock.t = heardAt + 90_000;
    h.board.getState().tick(h.clock.t);
    const result = await h.service.poll(id, 10_000);
    expect(result?.state).toBe('cancelled');
    expect(result?.reason).toBe('no event for 90s');
    expect(await h.screen(id)).toMatch(/⊘ cancelled · 1m30s · no event for 90s/);
  });

  it('keeps the default of 300 s when none is asked for', async () => {
    h = harness();
    const { id } = await h.service.spawn({ cmd: 'spawn', kind: 'command', argv: agent('--linger') }, h.clock.t);
    await until(() => h?.service.peek(id)?.text.includes('waiting') ?? false);
    const at = h.board.getState().status(h.clock.t).agents[0]?.lastEventAt ?? h.clock.t;
    expect(h.board.getState().status(h.clock.t).agents[0]?.idleCancelMs).toBeUndefined();
    h.clock.t = at + 299_000;
    h.board.getState().tick(h.clock.t);
    expect(h.board.getState().status(h.clock.t).agents[0]?.state).toBe('idle');
    h.clock.t = at + ORCH_IDLE_KILL;
    h.board.getState().tick(h.clock.t);
    expect((await h.service.poll(id, 10_000))?.reason).toBe('no event for 300s');
  });

  it('refuses a limit out of range with the range, before any agent starts', async () => {
    h = harness();
    await expect(h.service.spawn({ cmd: 'spawn', kind: 'command', argv: agent(), idle_cancel: 59 }, h.clock.t)).rejects.toThrow(
      'idle_cancel must be a whole number of seconds from 60 to 3600 (default 300)',
    );
    expect(h.board.getState().panels).toEqual([]);
  });
});
