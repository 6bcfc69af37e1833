/**
 * When the cost sampler (src/io/cost/cost-sampler.ts) samples, with the clock
 * faked and a real board and agent list: the cockpit's own figure in the
 * turn of a frame drawn anyway (a poke), once more an interval after the
 * last, and nothing at all at rest; the agents' figures every interval while
 * the list is open.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createBoard } from '../../../store/board.js';
import { createAgentList } from '../../../store/agent-list.js';
import { COST_REST_MS, COST_SAMPLE_MS, startCostSampler, type CostSampler, type CostSamplerOptions } from '../../../src/io/cost/cost-sampler.js';

let sampler: CostSampler | undefined;
afterEach(() => {
  sampler?.stop();
  sampler = undefined;
  vi.useRealTimers();
});

function start(own?: CostSamplerOptions['own']) {
  vi.useFakeTimers({ now: 1_700_000_000_000 });
  const list = createAgentList();
  const board = createBoard();
  sampler = startCostSampler({ board, list, pgidOf: () => undefined, now: Date.now, own });
  return { board, list, samples: () => sampler!.stats().samples, poke: () => sampler!.poke() };
}

describe('the cost sampler', () => {
  it('at rest, with its list closed, samples at the start and once an interval later, then keeps no timer for a minute', () => {
    const { list, samples } = start();
    expect(samples()).toBe(1);
    vi.advanceTimersByTime(COST_SAMPLE_MS + 250);
    expect(samples()).toBe(2);
    expect(list.getState().own?.cpu).toBeDefined(); // the second sample gives the CPU figure
    vi.advanceTimersByTime(60_000);
    expect(samples()).toBe(2);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("samples in the turn of a frame each second (the board's second), every interval while its figure changes, never on a timer of its own", () => {
    // A figure that moves at each sample (2 s apart): 10 % of a core, then 20 %, in turns.
    let user = 0;
    let n = 0;
    const { samples, poke } = start({ cpuUsage: () => ({ user: (user += ++n % 2 === 0 ? 200_000 : 400_000), system: 0 }), rss: () => 50e6 });
    // The board's second comes a hair before the sample's due time: it still takes it.
    const ticks: number[] = [];
    for (let second = 1; second <= 10; second++) {
      const before = samples();
      vi.advanceTimersByTime(1_000 - 5);
      expect(samples()).toBe(before); // no timer sampled between two frames
      poke();
      ticks.push(samples() - before);
      vi.advanceTimersByTime(5);
    }
    expect(ticks).toEqual([0, 1, 0, 1, 0, 1, 0, 1, 0, 1]);
  });

  it("keeps no timer while an agent runs (its header's second draws a frame each second), and samples once more after it ended", () => {
    const { board, samples, poke } = start();
    vi.advanceTimersByTime(COST_SAMPLE_MS + 250); // the start's second sample
    const id = board.getState().open({ label: 'work' }, Date.now());
    for (let second = 1; second <= 10; second++) {
      vi.advanceTimersByTime(1_000);
      poke();
      expect(vi.getTimerCount()).toBe(0);
    }
    const before = samples();
    board.getState().finish(id, 'done', 'ok', Date.now());
    vi.advanceTimersByTime(1_000);
    poke(); // the frame of its end
    vi.advanceTimersByTime(COST_SAMPLE_MS + 250);
    expect(samples()).toBe(before + 1);
    vi.advanceTimersByTime(60_000);
    expect(samples()).toBe(before + 1);
  });

  it('samples once more an interval after the last frame, so the figure shows the rest that followed it', () => {
    const { samples, poke } = start();
    vi.advanceTimersByTime(COST_SAMPLE_MS + 100);
    poke();
    const after = samples();
    vi.advanceTimersByTime(COST_SAMPLE_MS + 250);
    expect(samples()).toBe(after + 1);
    vi.advanceTimersByTime(60_000);
    expect(samples()).toBe(after + 1);
  });

  it('at rest, while its figure shows the same text, samples less often: the gap doubles up to COST_REST_MS, and a change brings the interval back', () => {
    let user = 0;
    const { board, samples, poke } = start({ cpuUsage: () => ({ user, system: 0 }), rss: () => 50e6 });
    board.getState().open({ label: 'silent' }, Date.now()); // a live agent: its header's second draws a frame each second
    const at: number[] = [];
    for (let second = 1; second <= 60; second++) {
      vi.advanceTimersByTime(1_000);
      const before = samples();
      poke(); // the header's second
      if (samples() > before) at.push(second);
    }
    // The start's sample shows `…`, the one at 2 s the first CPU figure; then the same `cpu <1% · 48 MB`.
    expect(at).toEqual([2, 4, 8, 16, 24, 32, 40, 48, 56]);
    expect(at.slice(-2).reduce((a, b) => b - a)).toBe(COST_REST_MS / 1_000);
    user += 3_000_000; // 3 s of CPU: the figure moves
    const moved: number[] = [];
    for (let second = 61; second <= 70; second++) {
      vi.advanceTimersByTime(1_000);
      const before = samples();
      poke();
      if (samples() > before) moved.push(second);
    }
    expect(moved).toEqual([64, 66, 68]); // at its due time, then the interval again while it moves back to `<1%`, then doubling
  });

  it('samples every interval while the agent list is open, and stops when it closes', () => {
    const { list, samples } = start();
    vi.advanceTimersByTime(60_000);
    const closed = samples();
    list.getState().show(undefined);
    expect(samples()).toBe(closed + 1); // at once when it opens
    vi.advanceTimersByTime(5 * COST_SAMPLE_MS);
    expect(samples()).toBe(closed + 6);
    list.getState().close();
    vi.advanceTimersByTime(60_000);
    expect(samples()).toBe(closed + 6);
    expect(vi.getTimerCount()).toBe(0);
  });
});
