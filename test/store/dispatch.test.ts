/**
 * The one dispatcher: the same Command from a key or the socket does the same
 * thing. A real board with real screens; the AgentService is a fake edge.
 */
import { describe, expect, test, vi } from 'vitest';
import type { AgentService } from '../../src/core/agents/agent-service.js';
import type { CommandOf } from '../../src/core/protocol/commands.js';
import { AgentsFullError } from '../../src/core/errors.js';
import { xtermScreens } from '../../src/io/terminal/screen.js';
import { createBoard } from '../../store/board.js';
import { dispatch, NO_AGENTS } from '../../store/dispatch.js';

const T0 = 1_000_000;
const board = () => createBoard({ createScreen: xtermScreens, cols: 120, rows: 39 });

const fakeAgents = (b: ReturnType<typeof board>): AgentService & { spawned: CommandOf<'spawn'>[] } => {
  const spawned: CommandOf<'spawn'>[] = [];
  return {
    spawned,
    async spawn(request, now) {
      if (spawned.length >= 1) throw new AgentsFullError(1, 1);
      spawned.push(request);
      const id = b.getState().open({ label: request.label ?? request.kind, task: request.prompt ?? '' }, now);
      return { id, label: request.label ?? request.kind, shown: true };
    },
    async poll(id) {
      return id === 1 ? { id, state: 'running', finished: false, text: 'so far', chars: 6, reason: '' } : undefined;
    },
    async readRecord(id, offset = 0) {
      return id === 'r1' ? { id, offset, text: 'page', total: 4, next: null } : undefined;
    },
  };
};

describe('vpane_*', () => {
  test('open, write, list and close a feed pane', async () => {
    const b = board();
    const ctx = { board: b, now: T0 };
    expect(await dispatch({ cmd: 'vpane_open', label: 'x', header: ' ● x', state: 'idle' }, ctx)).toEqual({
      ok: true,
      data: { id: 1, cols: 53, rows: 38 },
    });
    expect(await dispatch({ cmd: 'vpane_write', ops: [{ pane: 1, data: 'a' }, { pane: 1, state: 'running' }, { pane: 9 }, { pane: 9 }] }, ctx)).toEqual({
      ok: true,
      data: { closed: [9], cols: { '1': 53 } },
    });
    // The snapshot that vpane_list reads is published by the board's next flush or tick.
    b.getState().tick(T0);
    expect(await dispatch({ cmd: 'vpane_list' }, ctx)).toEqual({
      ok: true,
      data: [{ id: 1, state: 'running', header: ' ● x', cols: 53, rows: 38, closing: false }],
    });
    expect(await dispatch({ cmd: 'vpane_close', pane: 1 }, ctx)).toEqual({ ok: true, data: null });
    expect(await dispatch({ cmd: 'vpane_close', pane: 1 }, ctx)).toEqual({ ok: false, error: 'no such pane: 1' });
  });

  test('an agent panel is not a feed pane: writes report it closed, vpane_close refuses it', async () => {
    const b = board();
    const id = b.getState().open({ label: 'agent' }, T0);
    const ctx = { board: b, now: T0 };
    expect(await dispatch({ cmd: 'vpane_write', ops: [{ pane: id, data: 'x' }] }, ctx)).toEqual({ ok: true, data: { closed: [id], cols: {} } });
    expect(await dispatch({ cmd: 'vpane_close', pane: id }, ctx)).toEqual({
      ok: false,
      error: `pane ${id} is an agent panel, not a feed pane; use cancel`,
    });
    expect(await dispatch({ cmd: 'vpane_list' }, ctx)).toEqual({ ok: true, data: [] });
  });
});

describe('vpane_* edge cases', () => {
  test('a cockpit that draws nothing refuses feed panes and says why', async () => {
    const b = createBoard({ cols: 120, rows: 39 });
    expect(await dispatch({ cmd: 'vpane_open', label: 'x' }, { board: b, now: T0 })).toEqual({
      ok: false,
      error: 'feed panes are not drawn: panels are not drawn (no display)',
    });
  });

  test('a done op without linger lingers 20 s; an op with only a pane id refreshes the lease', async () => {
    const b = board();
    await dispatch({ cmd: 'vpane_open', label: 'a' }, { board: b, now: T0 });
    await dispatch({ cmd: 'vpane_open', label: 'b' }, { board: b, now: T0 });
    await dispatch({ cmd: 'vpane_write', ops: [{ pane: 1, done: true }] }, { board: b, now: T0 });
    await dispatch({ cmd: 'vpane_write', ops: [{ pane: 2 }] }, { board: b, now: T0 + 25_000 });
    b.getState().tick(T0 + 19_999);
    expect(b.getState().panels.map((p) => p.id)).toEqual([1, 2]);
    b.getState().tick(T0 + 20_000);
    expect(b.getState().panels.map((p) => p.id)).toEqual([2]);
    b.getState().tick(T0 + 54_999);
    expect(b.getState().panels[0]).toMatchObject({ id: 2, state: 'running' });
    b.getState().tick(T0 + 55_000);
    expect(b.getState().panels[0]).toMatchObject({ id: 2, state: 'failed', header: 'owner gone: ● b' });
  });
});

describe("tai's own commands", () => {
  test('without an AgentService, agent commands say why they cannot run', async () => {
    const ctx = { board: board(), now: T0 };
    for (const cmd of [
      { cmd: 'spawn', kind: 'command', argv: ['true'] },
      { cmd: 'poll', id: 1 },
      { cmd: 'record_read', id: 'r1' },
    ] as const) {
      expect(await dispatch(cmd, ctx)).toEqual({ ok: false, error: NO_AGENTS });
    }
    expect(NO_AGENTS.startsWith('agents cannot be started here: ')).toBe(true);
  });

  test('spawn, poll and record_read go to the AgentService; a full house is refused loudly', async () => {
    const b = board();
    const agents = fakeAgents(b);
    const ctx = { board: b, now: T0, agents };
    expect(await dispatch({ cmd: 'spawn', kind: 'command', argv: ['sleep', '1'], label: 'sleeper' }, ctx)).toEqual({
      ok: true,
      data: { id: 1, label: 'sleeper', shown: true },
    });
    expect(await dispatch({ cmd: 'spawn', kind: 'command', argv: [] }, ctx)).toEqual({
      ok: false,
      error: new AgentsFullError(1, 1).message,
    });
    expect(await dispatch({ cmd: 'poll', id: 1, wait: 0 }, ctx)).toMatchObject({ ok: true, data: { text: 'so far' } });
    expect(await dispatch({ cmd: 'poll', id: 2 }, ctx)).toEqual({ ok: false, error: 'no such agent: 2' });
    expect(await dispatch({ cmd: 'record_read', id: 'r1' }, ctx)).toMatchObject({ ok: true, data: { text: 'page' } });
    expect(await dispatch({ cmd: 'record_read', id: 'r9' }, ctx)).toEqual({ ok: false, error: 'no such record: r9' });
  });

  test('cancel asks a live agent to stop through its hook, and refuses what cannot be cancelled', async () => {
    const b = board();
    const id = b.getState().open({ label: 'job' }, T0);
    const reasons: string[] = [];
    b.getState().setCancel(id, (reason) => reasons.push(reason));
    const ctx = { board: b, now: T0 };
    expect(await dispatch({ cmd: 'cancel', id }, ctx)).toEqual({ ok: true, data: { id, cancelled: true } });
    expect(reasons).toEqual(['cancelled by request (tai cancel)']);
    expect(await dispatch({ cmd: 'cancel', id }, ctx)).toEqual({ ok: false, error: `agent ${id} is not running (running)` });
    b.getState().finish(id, 'done', 'ok', T0 + 1);
    expect(await dispatch({ cmd: 'cancel', id }, ctx)).toEqual({ ok: false, error: `agent ${id} is not running (cancelled)` });
    expect(await dispatch({ cmd: 'cancel', id: 99 }, ctx)).toEqual({ ok: false, error: 'no such pane: 99' });
    const feed = (await dispatch({ cmd: 'vpane_open', label: 'f' }, ctx)) as { data: { id: number } };
    expect(await dispatch({ cmd: 'cancel', id: feed.data.id }, ctx)).toEqual({
      ok: false,
      error: `pane ${feed.data.id} is a feed pane; close it with vpane_close`,
    });
  });

  test('status is the board status', async () => {
    const b = board();
    b.getState().open({ label: 'one' }, T0);
    const reply = await dispatch({ cmd: 'status' }, { board: b, now: T0 + 5_000 });
    expect(reply).toMatchObject({ ok: true, data: { totals: { running: 1, total: 1 }, agents: [{ id: 1, label: 'one', elapsedMs: 5_000 }] } });
  });

  test('an unexpected failure is an internal error reply, logged, never a throw', async () => {
    const b = board();
    const lines: string[] = [];
    const agents: AgentService = {
      spawn: () => Promise.reject(new Error('runner exploded')),
      poll: () => Promise.resolve(undefined),
      readRecord: () => Promise.resolve(undefined),
    };
    const reply = await dispatch({ cmd: 'spawn', kind: 'command', argv: [] }, { board: b, now: T0, agents, log: (l) => lines.push(l) });
    expect(reply).toEqual({ ok: false, error: 'internal error: runner exploded' });
    expect(lines).toEqual(['dispatch spawn failed: runner exploded']);
  });
});

describe('the keyboard commands call the board', () => {
  test('focus goes to a pane by id, and an unknown pane is refused', async () => {
    const b = board();
    const ctx = { board: b, now: T0 };
    const a = b.getState().open({ label: 'a' }, T0);
    expect(await dispatch({ cmd: 'focus', to: a }, ctx)).toEqual({ ok: true, data: null });
    expect(b.getState().focus).toBe(a);
    expect(await dispatch({ cmd: 'focus', to: 99 }, ctx)).toEqual({ ok: false, error: 'no such pane: 99' });
    expect(await dispatch({ cmd: 'focus', to: 'main' }, ctx)).toEqual({ ok: true, data: null });
    expect(b.getState().focus).toBe('main');
  });

  test('scroll by lines goes back as far as the pane keeps, and forward to the bottom', async () => {
    const b = board();
    const ctx = { board: b, now: T0 };
    const a = b.getState().open({ label: 'a' }, T0);
    b.getState().focusSet(a);
    b.getState().write(a, Array.from({ length: 50 }, (_, i) => `line ${i}\r\n`).join(''), T0);
    b.getState().flush(T0 + 25);
    const history = () => b.getState().screenOf(a)?.history?.() ?? 0;
    await vi.waitFor(() => expect(history()).toBeGreaterThan(0));
    await dispatch({ cmd: 'scroll', lines: -3 }, ctx);
    expect(b.getState().scrollback).toBe(3);
    await dispatch({ cmd: 'scroll', lines: -1000 }, ctx);
    expect(b.getState().scrollback).toBe(history());
    await dispatch({ cmd: 'scroll', lines: 1000 }, ctx);
    expect(b.getState().scrollback).toBe(0);
  });

  test('focus, zoom, scroll, help and close', async () => {
    const b = board();
    const ctx = { board: b, now: T0 };
    const a = b.getState().open({ label: 'a' }, T0);
    expect(await dispatch({ cmd: 'focus', to: 'next' }, ctx)).toEqual({ ok: true, data: null });
    expect(b.getState().focus).toBe(a);
    await dispatch({ cmd: 'zoom' }, ctx);
    expect(b.getState().zoom).toBe(a);
    await dispatch({ cmd: 'zoom' }, ctx);
    expect(b.getState().zoom).toBe(null);
    await dispatch({ cmd: 'help' }, ctx);
    expect(b.getState().help).toBe(true);
    await dispatch({ cmd: 'scroll', pages: -1 }, ctx);
    expect(b.getState().scrollback).toBe(0); // nothing above the visible rows yet: a pane scrolls only as far as it keeps
    b.getState().write(a, 'line\r\n'.repeat(200), T0);
    b.getState().flush(T0 + 25);
    await vi.waitFor(async () => {
      await dispatch({ cmd: 'scroll', pages: -1 }, ctx);
      expect(b.getState().scrollback).toBeGreaterThan(0);
    });
    await dispatch({ cmd: 'scroll', pages: 0 }, ctx);
    expect(b.getState().scrollback).toBe(0);
    const reasons: string[] = [];
    b.getState().setCancel(a, (r) => reasons.push(r));
    expect(await dispatch({ cmd: 'close' }, ctx)).toEqual({ ok: true, data: null });
    expect(reasons).toEqual(['closed by the user']);
    expect(b.getState().panels).toEqual([]);
    expect(await dispatch({ cmd: 'close' }, ctx)).toEqual({ ok: false, error: 'the main pane cannot be closed from here' });
    expect(await dispatch({ cmd: 'close', pane: 42 }, ctx)).toEqual({ ok: false, error: 'no such pane: 42' });
  });
});
