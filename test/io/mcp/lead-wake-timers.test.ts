/**
 * `tai --wake` arms no timer at rest (src/io/lead/wake-wiring.ts): the rules
 * are asked when the lead's agent ends or asks or the control socket's record
 * changes, and one timer runs only for the deadline they name. A real board,
 * the real record of the lead's traffic and the wiring the cockpit uses; the
 * clock and the timers are vitest's fake ones, so no test sleeps.
 */
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { createBoard } from '../../../store/board.js';
import type { Reply } from '../../../store/dispatch.js';
import type { Command } from '../../../src/core/protocol/commands.js';
import { WAKE_QUIET_KEYS_MS, WAKE_QUIET_OUTPUT_MS } from '../../../src/core/lead/wake-rules.js';
import { wireLeadWake, type WiredWake } from '../../../src/io/lead/wake-wiring.js';
import { createLeadTraffic, WAIT_RECENT_MS } from '../../../src/io/socket/lead-traffic.js';

let wired: WiredWake | undefined;
beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  wired?.stop();
  wired = undefined;
  vi.useRealTimers();
});

const SPAWN: Command = { cmd: 'spawn', kind: 'command', argv: ['true'], label: 'worker' };

/** A cockpit's board and record with the wake-up wired, and what it typed. */
function cockpit(): { board: ReturnType<typeof createBoard>; traffic: ReturnType<typeof createLeadTraffic>; typed: string[]; lead: (label: string) => number } {
  const board = createBoard({ drawingOff: 'test' });
  const traffic = createLeadTraffic();
  const typed: string[] = [];
  wired = wireLeadWake(traffic, { board, env: {}, now: Date.now, log: () => {}, type: (text) => typed.push(text) });
  /** An agent the lead started over the control socket: the board opens it and the spawn's reply names it. */
  const lead = (label: string): number => {
    const id = board.getState().open({ label }, Date.now());
    traffic.asked(SPAWN, Date.now());
    traffic.answered(SPAWN, { ok: true, data: { id } } as Reply, Date.now());
    return id;
  };
  return { board, traffic, typed, lead };
}

describe('the wake-up runs a timer only for a deadline', () => {
  test('a cockpit with --wake and nothing pending runs no timer, while the main program writes, the user types and agents come and go', () => {
    const { board, typed, lead } = cockpit();
    expect(vi.getTimerCount()).toBe(0);
    wired?.noteOutput();
    wired?.noteKeys();
    const other = board.getState().open({ label: 'typed by hand' }, Date.now());
    board.getState().finish(other, 'done', 'exit 0 · 3 chars', Date.now());
    const running = lead('worker');
    vi.advanceTimersByTime(60_000);
    expect(vi.getTimerCount()).toBe(0);
    expect(typed).toEqual([]);
    expect(board.getState().status(Date.now()).agents.find((r) => r.id === running)?.state).toBe('running');
  });

  test("the lead's agent ended: one timer for the quiet delay, the line typed when it passed, then the Enter, then no timer", () => {
    const { board, typed, lead } = cockpit();
    const id = lead('worker');
    board.getState().finish(id, 'done', 'exit 0 · 12 chars', Date.now());
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(WAKE_QUIET_KEYS_MS - 1);
    expect(typed).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(typed).toEqual([`[tai] agent #${id} worker done (12 characters): read it with the tai wait tool`]);
    vi.advanceTimersByTime(1_000);
    expect(typed).toEqual([`[tai] agent #${id} worker done (12 characters): read it with the tai wait tool`, '\r']);
    expect(vi.getTimerCount()).toBe(0);
  });

  test('keys typed and output written meanwhile postpone the line, as they always did, with never more than one timer', () => {
    const { board, typed, lead } = cockpit();
    const id = lead('worker');
    board.getState().finish(id, 'failed', 'exit 1 · 4 chars', Date.now());
    vi.advanceTimersByTime(WAKE_QUIET_KEYS_MS - 2_000);
    wired?.noteKeys();
    vi.advanceTimersByTime(2_000);
    expect(typed).toEqual([]);
    expect(vi.getTimerCount()).toBe(1);
    // The output comes 5 s after the keys: its quiet ends 2 s after theirs.
    vi.advanceTimersByTime(5_000);
    wired?.noteOutput();
    vi.advanceTimersByTime(WAKE_QUIET_OUTPUT_MS - 1);
    expect(typed).toEqual([]);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(1);
    expect(typed).toEqual([`[tai] agent #${id} worker failed (4 characters): read it with the tai wait tool`]);
  });

  test('a poll of the agent in flight holds the line with no timer; its answer arms one for the time a recent poll still counts', () => {
    const { board, traffic, typed, lead } = cockpit();
    const id = lead('worker');
    vi.advanceTimersByTime(WAKE_QUIET_KEYS_MS);
    const poll: Command = { cmd: 'poll', id, wait: 20 };
    traffic.asked(poll, Date.now());
    board.getState().finish(id, 'done', 'exit 0 · 5 chars', Date.now());
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(60_000);
    expect(typed).toEqual([]);
    // The poll answers before it saw the end (the lead's wait looks again about once a second, but it went away).
    traffic.answered(poll, { ok: true, data: { id, finished: false } } as Reply, Date.now());
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(WAIT_RECENT_MS - 1);
    expect(typed).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(typed).toEqual([`[tai] agent #${id} worker done (5 characters): read it with the tai wait tool`]);
  });

  test('a question of the lead\'s agent is typed after the quiet delay, unless a question list of the lead listed it first', () => {
    const { board, traffic, typed, lead } = cockpit();
    const ask = { tool: 'Bash', detail: [], options: [{ id: 'y', name: 'allow', kind: 'allow_once' as const }] };
    const heard = lead('heard');
    board.getState().ask(heard, ask, Date.now(), () => {});
    expect(vi.getTimerCount()).toBe(1);
    traffic.answered({ cmd: 'ask_list' } as Command, { ok: true, data: [{ open: true, panel: heard }] } as Reply, Date.now());
    vi.advanceTimersByTime(60_000);
    expect(typed).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
    const unheard = lead('unheard');
    board.getState().ask(unheard, ask, Date.now(), () => {});
    vi.advanceTimersByTime(WAKE_QUIET_KEYS_MS);
    expect(typed).toEqual([`[tai] agent #${unheard} unheard asks a question: read it with the tai questions tool`, '\r']);
  });

  test('a second question of the same agent, opened from its queue when the lead answered the first, is typed to the lead too', () => {
    const { board, traffic, typed, lead } = cockpit();
    const options = [{ id: 'y', name: 'allow', kind: 'allow_once' as const }];
    const id = lead('twice');
    const first = board.getState().ask(id, { tool: 'Bash', detail: [], options }, Date.now(), () => {});
    const second = board.getState().ask(id, { tool: 'Edit', detail: [], options }, Date.now(), () => {});
    expect(board.getState().questionOf(id)?.qid).toBe(first);
    const line = `[tai] agent #${id} twice asks a question: read it with the tai questions tool`;
    vi.advanceTimersByTime(WAKE_QUIET_KEYS_MS + 1_000);
    expect(typed).toEqual([line, '\r']);
    // The lead lists the questions (the first is open), then answers it: the second opens.
    traffic.answered({ cmd: 'ask_list' } as Command, { ok: true, data: [{ open: true, panel: id }] } as Reply, Date.now());
    vi.advanceTimersByTime(1_000);
    board.getState().answer(first ?? '', 'y', 'the lead', Date.now());
    expect(board.getState().questionOf(id)?.qid).toBe(second);
    expect(board.getState().status(Date.now()).agents.find((r) => r.id === id)?.state).toBe('asking');
    vi.advanceTimersByTime(WAKE_QUIET_KEYS_MS);
    expect(typed).toEqual([line, '\r', line, '\r']);
    expect(vi.getTimerCount()).toBe(0);
  });
});
