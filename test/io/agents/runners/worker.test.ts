import { afterEach, describe, expect, it, vi } from 'vitest';
import { harness, type Harness } from '../../../helpers/agents.js';

let h: Harness;
afterEach(() => h?.close());

describe('the in-process worker', () => {
  it('streams its events into the panel and hands back its return value', async () => {
    h = harness();
    const { id } = h.service.spawnWorker({ label: 'lib', task: 'count' }, async (_signal, emit) => {
      emit({ type: 'tool_start', name: 'count', args: 'password=letmein' });
      emit({ type: 'tool_end', name: 'count', result: '3', failed: false });
      emit({ type: 'text', text: 'counted' });
      return 'three';
    }, h.clock.t);
    expect(await h.service.poll(id, 5_000)).toMatchObject({ state: 'done', text: 'three' });
    const screen = await h.screen(id);
    expect(screen).toContain('⏺ count(password=[hidden])');
    expect(screen).toContain('counted');
  });

  it('stops at its next step when the signal aborts, with the text so far as the partial result', async () => {
    h = harness();
    let step!: () => void;
    const { id } = h.service.spawnWorker({ label: 'steps', timeout: 30 }, async (signal, emit) => {
      for (let i = 0; ; i++) {
        if (signal.aborted) throw new Error('aborted');
        emit({ type: 'text', text: `step ${i}. ` });
        await new Promise<void>((resolve) => (step = resolve));
      }
    }, h.clock.t);
    const text = (): string => h.service.peek(id)?.text ?? '';
    await vi.waitFor(() => expect(text()).toBe('step 0. '));
    step();
    await vi.waitFor(() => expect(text()).toBe('step 0. step 1. '));
    h.tick(30_000);
    step();
    const result = await h.service.poll(id, 5_000);
    expect(result?.state).toBe('timeout');
    expect(result?.text).toBe('[timeout (time limit reached (30s)); partial result]\nstep 0. step 1. ');
  });

  it('is finished by the board one grace after the hard stop when it ignores the signal', async () => {
    h = harness();
    const { id } = h.service.spawnWorker({ label: 'stubborn' }, async (_signal, emit) => {
      emit({ type: 'text', text: 'ignoring you' });
      await new Promise(() => {});
    }, h.clock.t);
    h.board.getState().cancel(id, 'stop', h.clock.t);
    h.tick(5_000);
    expect(h.service.peek(id)?.finished).toBe(false);
    h.tick(5_000);
    const result = await h.service.poll(id);
    expect(result).toMatchObject({ state: 'cancelled', finished: true, exitCode: 130 });
    expect(result?.reason).toBe('stop');
    expect(result?.text).toBe('[cancelled (stop); partial result]\nignoring you');
  });

  it('fails with the error a worker throws', async () => {
    h = harness();
    const { id } = h.service.spawnWorker({}, async () => {
      throw new Error('model unavailable');
    }, h.clock.t);
    expect(await h.service.poll(id, 5_000)).toMatchObject({ state: 'failed', exitCode: 1 });
  });
});
