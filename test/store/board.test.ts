import { describe, expect, it } from 'vitest';
import { createBoard, NO_DISPLAY } from '../../store/board.js';
import { AgentsFullError } from '../../src/core/errors.js';
import {
  AGENTS_MAX_PARALLEL,
  ORCH_CANCEL_GRACE,
  ORCH_FLUSH_INTERVAL,
  ORCH_IDLE_KILL,
  ORCH_IDLE_WARN,
  ORCH_LINGER,
} from '../../src/core/policy.js';
import { XtermScreen } from '../../src/io/terminal/screen.js';
import type { Screen } from '../../src/core/screen.js';

/** A board with real screens, remembering them so tests can read what was drawn. */
function drawnBoard(cols = 120, rows = 40) {
  const screens: XtermScreen[] = [];
  const board = createBoard({
    cols,
    rows,
    createScreen: (c, r) => {
      const s = new XtermScreen(c, r);
      screens.push(s);
      return s;
    },
  });
  return { board, screens };
}

/** Stop hooks that count their calls. */
function hooks() {
  const calls = { soft: [] as string[], hard: [] as string[] };
  return {
    calls,
    soft: (reason: string) => calls.soft.push(reason),
    hard: (reason: string) => calls.hard.push(reason),
  };
}

const T0 = 1_000_000;

describe('supervision', () => {
  it('shows an agent idle after 60 s of silence and running again on its next event', () => {
    const board = createBoard();
    const id = board.getState().open({ label: 'agent #1', task: 'think' }, T0);
    board.getState().tick(T0 + ORCH_IDLE_WARN - 1);
    expect(board.getState().status(T0).agents[0]?.state).toBe('running');
    board.getState().tick(T0 + ORCH_IDLE_WARN);
    expect(board.getState().status(T0 + ORCH_IDLE_WARN).agents[0]?.state).toBe('idle');
    expect(board.getState().panels[0]?.header).toContain('idle');
    board.getState().emit(id, { type: 'text', text: 'back' }, T0 + ORCH_IDLE_WARN + 10);
    board.getState().tick(T0 + ORCH_IDLE_WARN + 1000);
    expect(board.getState().status(T0).agents[0]?.state).toBe('running');
  });

  it('cancels an agent that is silent for 300 s, firing the cancel hook exactly once', () => {
    const board = createBoard();
    const id = board.getState().open({ label: 'agent #1' }, T0);
    const h = hooks();
    board.getState().setCancel(id, h.soft, h.hard);
    board.getState().tick(T0 + ORCH_IDLE_KILL - 1);
    expect(h.calls.soft).toEqual([]);
    board.getState().tick(T0 + ORCH_IDLE_KILL);
    board.getState().tick(T0 + ORCH_IDLE_KILL + 1000);
    board.getState().tick(T0 + ORCH_IDLE_KILL + 2000);
    expect(h.calls.soft).toEqual(['no event for 300s']);
    expect(board.getState().finish(id, 'failed', 'stopped', T0 + ORCH_IDLE_KILL + 2500)).toBe('cancelled');
  });

  it('says in the footer and the status why supervision stopped an agent, not only how the agent took it', async () => {
    const { board, screens } = drawnBoard();
    const id = board.getState().open({ label: 'agent #1' }, T0);
    board.getState().setCancel(id, () => {}, () => {});
    board.getState().tick(T0 + ORCH_IDLE_KILL);
    board.getState().finish(id, 'failed', 'exit 130', T0 + ORCH_IDLE_KILL + 500);
    board.getState().flush(T0 + ORCH_IDLE_KILL + 600);
    expect(board.getState().status(T0 + ORCH_IDLE_KILL + 600).agents[0]?.reason).toBe('no event for 300s');
    await screens[0]?.parsed();
    expect(screens[0]?.text().join('\n')).toMatch(/⊘ cancelled · 5m00s · no event for 300s \(exit 130\)/);
  });

  it('keeps the reason a cancel was asked with', () => {
    const board = createBoard();
    const id = board.getState().open({ label: 'agent #1' }, T0);
    board.getState().setCancel(id, () => {});
    board.getState().cancel(id, 'interrupted (Ctrl-C)', T0 + 10, 'user');
    board.getState().finish(id, 'failed', 'exit 130', T0 + 20);
    expect(board.getState().status(T0 + 20).agents[0]).toMatchObject({ state: 'cancelled', reason: 'interrupted (Ctrl-C)' });
  });

  it('stops an agent at its wall clock and finishes it as a timeout', () => {
    const board = createBoard();
    const id = board.getState().open({ label: 'w', timeoutMs: 30_000 }, T0);
    const h = hooks();
    board.getState().setCancel(id, h.soft);
    board.getState().emit(id, { type: 'text', text: 'working' }, T0 + 29_000);
    board.getState().tick(T0 + 29_999);
    expect(h.calls.soft).toEqual([]);
    board.getState().tick(T0 + 30_000);
    expect(h.calls.soft).toEqual(['time limit reached (30s)']);
    expect(board.getState().finish(id, 'cancelled', 'partial', T0 + 30_500)).toBe('timeout');
  });

  it('escalates a soft stop to a hard stop after the grace, and finishes a stuck agent itself', () => {
    const board = createBoard();
    const id = board.getState().open({ label: 'stubborn' }, T0);
    const h = hooks();
    board.getState().setCancel(id, h.soft, h.hard);
    expect(board.getState().cancel(id, 'asked by the lead', T0 + 1000)).toBe(true);
    expect(h.calls.soft).toEqual(['asked by the lead']);
    board.getState().tick(T0 + 1000 + ORCH_CANCEL_GRACE - 1);
    expect(h.calls.hard).toEqual([]);
    board.getState().tick(T0 + 1000 + ORCH_CANCEL_GRACE);
    expect(h.calls.hard).toEqual(['asked by the lead']);
    board.getState().tick(T0 + 1000 + 2 * ORCH_CANCEL_GRACE);
    const row = board.getState().status(T0 + 20_000).agents[0];
    expect(row?.state).toBe('cancelled');
    expect(row?.reason).toBe('asked by the lead');
    expect(h.calls.soft).toHaveLength(1);
    expect(h.calls.hard).toHaveLength(1);
  });

  it('calls a clean finish during the grace cancelled: the stop was asked for (docs/spec.md, "Owners and sessions")', () => {
    const board = createBoard();
    const id = board.getState().open({ label: 'quick' }, T0);
    board.getState().cancel(id, 'enough', T0);
    expect(board.getState().finish(id, 'done', 'finished anyway', T0 + 100)).toBe('cancelled');
  });

  it('cancels the agent of a panel the user closes and takes the panel off the board at once', () => {
    const { board } = drawnBoard();
    const id = board.getState().open({ label: 'agent #1' }, T0);
    const h = hooks();
    board.getState().setCancel(id, h.soft, h.hard);
    expect(board.getState().closeByUser(id, T0 + 10)).toBe(true);
    expect(h.calls.soft).toEqual(['closed by the user']);
    expect(board.getState().panels).toEqual([]);
    // Still supervised without a panel: the hard stop follows the grace.
    board.getState().tick(T0 + 10 + ORCH_CANCEL_GRACE);
    expect(h.calls.hard).toEqual(['closed by the user']);
    expect(board.getState().finish(id, 'failed', 'killed', T0 + 6000)).toBe('cancelled');
  });

  it('lingers a finished panel for 20 s, then removes it and rebalances the column', () => {
    const { board } = drawnBoard();
    const a = board.getState().open({ label: 'a' }, T0);
    board.getState().open({ label: 'b' }, T0);
    expect(board.getState().layout.panels.map((p) => p.rect.rows)).toEqual([20, 19]);
    board.getState().finish(a, 'done', 'ok', T0 + 1000);
    board.getState().tick(T0 + 1000 + ORCH_LINGER - 1);
    expect(board.getState().panels.map((p) => p.label)).toEqual(['a', 'b']);
    expect(board.getState().panels[0]?.closing).toBe(true);
    board.getState().tick(T0 + 1000 + ORCH_LINGER);
    expect(board.getState().panels.map((p) => p.label)).toEqual(['b']);
    expect(board.getState().layout.panels.map((p) => p.rect.rows)).toEqual([40]);
    expect(board.getState().status(T0 + 30_000).agents.map((r) => [r.label, r.state])).toEqual([
      ['a', 'done'],
      ['b', 'running'],
    ]);
  });

  it('refuses the ninth live agent loudly with how many run and the limit', () => {
    const board = createBoard();
    for (let i = 0; i < AGENTS_MAX_PARALLEL; i++) board.getState().open({ label: `a${i}` }, T0);
    expect(() => board.getState().open({ label: 'ninth' }, T0)).toThrow(AgentsFullError);
    expect(() => board.getState().open({ label: 'ninth' }, T0)).toThrow(
      'too many agents: 8 are running and the limit is 8; wait for one to finish or cancel one (tai cancel ID)',
    );
    board.getState().finish(1, 'done', '', T0 + 1);
    expect(board.getState().open({ label: 'ninth' }, T0 + 2)).toBe(9);
  });

  it('ignores events after finish', () => {
    const board = createBoard();
    const id = board.getState().open({ label: 'a' }, T0);
    board.getState().finish(id, 'done', 'ok', T0 + 1);
    board.getState().emit(id, { type: 'tool_start', name: 'shell', args: 'ls' }, T0 + 2);
    board.getState().emit(id, { type: 'usage', tokens: 99 }, T0 + 2);
    const row = board.getState().status(T0 + 3).agents[0];
    expect([row?.state, row?.tools, row?.tokens, row?.lastEventAt]).toEqual(['done', 0, 0, T0]);
  });

  it('counts tools and tokens into the header', () => {
    const board = createBoard();
    const id = board.getState().open({ label: 'agent #1' }, T0);
    board.getState().emit(id, { type: 'tool_start', name: 'shell', args: 'ls' }, T0 + 1000);
    board.getState().emit(id, { type: 'tool_end', name: 'shell', result: 'a\nb', failed: false }, T0 + 2000);
    board.getState().emit(id, { type: 'usage', tokens: 1500 }, T0 + 3000);
    board.getState().tick(T0 + 4000);
    expect(board.getState().panels[0]?.header).toBe(' ● agent #1 · running · 4s · 1 tool · 1.5k tok');
  });
});

describe('outage holds', () => {
  it('holds an agent for the network with its clocks paused and resumes it with the wall clock extended', () => {
    const board = createBoard();
    const id = board.getState().open({ label: 'lane 1', timeoutMs: 600_000 }, T0);
    const h = hooks();
    board.getState().setCancel(id, h.soft);
    board.getState().hold(id, 'network', T0 + 10_000);
    expect(board.getState().panels[0]?.header).toBe(' ⌁ lane 1 · waiting for network · 10s');
    board.getState().tick(T0 + 3_600_000);
    expect(h.calls.soft).toEqual([]);
    board.getState().resume(id, T0 + 3_600_000);
    expect(board.getState().panels[0]?.state).toBe('running');
    const resumed = T0 + 3_600_000;
    board.getState().emit(id, { type: 'text', text: 'still here' }, resumed + 290_000);
    board.getState().emit(id, { type: 'text', text: 'still here' }, resumed + 580_000);
    board.getState().tick(T0 + 3_600_000 + 599_999 - 10_000);
    expect(h.calls.soft).toEqual([]);
    board.getState().tick(T0 + 3_600_000 + 600_000 - 10_000);
    expect(h.calls.soft).toEqual(['time limit reached (600s)']);
  });
});

describe('hidden panels', () => {
  it('opens a hidden panel with the reason when nothing is drawn, and supervises it the same', () => {
    const board = createBoard();
    const id = board.getState().open({ label: 'headless' }, T0);
    expect(board.getState().panels[0]).toMatchObject({ id, shown: false, reason: NO_DISPLAY });
    const h = hooks();
    board.getState().setCancel(id, h.soft);
    board.getState().tick(T0 + ORCH_IDLE_KILL);
    expect(h.calls.soft).toEqual(['no event for 300s']);
  });

  it('opens a hidden panel when the window has no room, and shows it once room appears', () => {
    const { board } = drawnBoard(120, 40);
    for (let i = 0; i < 7; i++) board.getState().open({ label: `a${i + 1}` }, T0);
    const seventh = board.getState().panels[6];
    expect(seventh).toMatchObject({ label: 'a7', shown: false, reason: 'no space for another feed pane' });
    board.getState().finish(1, 'done', '', T0 + 1);
    board.getState().tick(T0 + 1 + ORCH_LINGER);
    expect(board.getState().panels.find((p) => p.label === 'a7')?.shown).toBe(true);
  });
});

describe('places on screen', () => {
  it('gives a running agent the place of a finished one, whose screen the agent list keeps', () => {
    const { board } = drawnBoard(120, 40);
    const s = board.getState;
    const ids = Array.from({ length: 6 }, (_, i) => s().open({ label: `a${i}` }, T0)); // six fit in 40 rows, a seventh not
    s().finish(ids[0]!, 'done', 'ok', T0 + 1);
    s().finish(ids[1]!, 'failed', 'exit 1', T0 + 1);
    expect(s().layout.panels.map((p) => p.id)).toEqual(ids);
    const late = s().open({ label: 'late' }, T0 + 2);
    // The oldest finished one made room: the live agent is shown, the other finished one lingers.
    expect(s().layout.panels.map((p) => p.id)).toEqual([...ids.slice(1), late]);
    expect(s().layout.hidden).toEqual([]);
    expect(s().transcriptKept(ids[0]!)).toBe(true);
    // Reopened from the list it is zoomed over the window; un-zoomed, the next live agent takes its place again.
    expect(s().reveal(ids[0]!, T0 + 3)).toBe(true);
    s().zoomToggle();
    const later = s().open({ label: 'later' }, T0 + 4);
    expect(s().layout.panels.map((p) => p.id)).toContain(later);
    expect(s().layout.hidden.map((h) => h.id)).not.toContain(later);
  });
});

describe('output', () => {
  it('draws the opening line and streamed words into the panel screen, one flush per interval', async () => {
    const { board, screens } = drawnBoard(120, 40);
    const id = board.getState().open({ label: 'agent #1', task: 'list files' }, T0);
    board.getState().emit(id, { type: 'text', text: 'hello wor' }, T0 + 1);
    expect(board.getState().flush(T0 + 1)).toBe(true);
    board.getState().emit(id, { type: 'text', text: 'ld and more\n' }, T0 + 2);
    expect(board.getState().flush(T0 + 2)).toBe(false);
    expect(board.getState().flush(T0 + 1 + ORCH_FLUSH_INTERVAL)).toBe(true);
    const screen = screens[0]!;
    await screen.parsed();
    expect(screen.text().slice(0, 3)).toEqual(['▸ list files', '', 'hello world and more']);
    expect(board.counters.flushes).toBe(2);
  });

  it('releases a held word after the text pauses for 0.1 s', async () => {
    const { board, screens } = drawnBoard();
    const id = board.getState().open({ label: 'a' }, T0);
    board.getState().emit(id, { type: 'text', text: 'partial' }, T0);
    board.getState().flush(T0 + 50);
    await screens[0]!.parsed();
    expect(screens[0]!.text()[0]).toBe('');
    board.getState().flush(T0 + 100);
    await screens[0]!.parsed();
    expect(screens[0]!.text()[0]).toBe('partial');
  });

  it('drops the oldest output of a flooded panel at a line end, says so, and counts it', async () => {
    const { board, screens } = drawnBoard();
    const id = board.getState().open({ label: 'flood' }, T0);
    const line = 'x'.repeat(40) + '\n';
    for (let i = 0; i < 10_000; i++) board.getState().emit(id, { type: 'text', text: line }, T0);
    const dropped = board.getState().status(T0).agents[0]!.droppedBytes;
    expect(dropped).toBeGreaterThanOrEqual(10_000 * 42 - 262_144);
    expect(dropped % 42).toBe(0); // whole lines: 40 x and CRLF
    board.getState().flush(T0);
    await screens[0]!.parsed();
    // The marker opens the first chunk, now in the scrollback.
    expect(screens[0]!.term.buffer.active.getLine(0)?.translateToString(true)).toBe('… output skipped: the screen fell behind');
  });

  it('stops drawing after three failed flushes and keeps supervising', () => {
    const logs: string[] = [];
    const failing: Screen = {
      write: () => {
        throw new Error('terminal gone');
      },
      resize: () => {},
      dispose: () => {},
    };
    const board = createBoard({ cols: 120, rows: 40, createScreen: () => failing, log: (l) => logs.push(l) });
    const id = board.getState().open({ label: 'a', task: 't' }, T0);
    const h = hooks();
    board.getState().setCancel(id, h.soft);
    for (let i = 0; i < 3; i++) {
      board.getState().emit(id, { type: 'text', text: `line ${i}\n` }, T0 + i * 100);
      board.getState().flush(T0 + i * 100);
    }
    expect(board.getState().drawingOff).toBe('display failed 3 times: terminal gone');
    expect(board.getState().panels[0]).toMatchObject({ shown: false, reason: 'display failed 3 times: terminal gone' });
    board.getState().tick(T0 + 200 + ORCH_IDLE_KILL);
    expect(h.calls.soft).toEqual(['no event for 300s']);
    expect(logs.at(-1)).toContain('supervision goes on');
  });
});

describe('feed panes', () => {
  it('orphans a feed pane whose owner stops writing, then closes it after the orphan linger', () => {
    const { board } = drawnBoard();
    const id = board.getState().open({ kind: 'feed', label: 'ext', header: ' ● ext · running' }, T0);
    board.getState().write(id, 'hi\r\n', T0 + 10_000);
    board.getState().tick(T0 + 39_999);
    expect(board.getState().panels[0]?.state).toBe('running');
    board.getState().tick(T0 + 40_000);
    expect(board.getState().panels[0]).toMatchObject({ state: 'failed', header: 'owner gone: ● ext · running' });
    board.getState().tick(T0 + 49_999);
    expect(board.getState().panels).toHaveLength(1);
    board.getState().tick(T0 + 50_000);
    expect(board.getState().panels).toHaveLength(0);
  });

  it('closes a done feed pane after its linger, clamped to 300 s', () => {
    const { board } = drawnBoard();
    const id = board.getState().open({ kind: 'feed', label: 'ext' }, T0);
    board.getState().feed(id, { state: 'done', done: true, linger: 9999 }, T0);
    board.getState().tick(T0 + 299_999);
    expect(board.getState().panels).toHaveLength(1);
    board.getState().tick(T0 + 300_000);
    expect(board.getState().panels).toHaveLength(0);
  });
});

describe('focus and zoom', () => {
  it('cycles focus through the main pane and the shown panels, and zooms the focused one', () => {
    const { board } = drawnBoard();
    board.getState().open({ label: 'a' }, T0);
    board.getState().open({ label: 'b' }, T0);
    const s = () => board.getState();
    s().focusMove('next');
    expect(s().focus).toBe(1);
    s().focusMove('down');
    expect(s().focus).toBe(2);
    s().focusMove('next');
    expect(s().focus).toBe('main');
    s().focusMove('prev');
    s().zoomToggle();
    expect(s().layout.zoomed).toEqual({ id: 2, rect: { x: 0, y: 0, cols: 120, rows: 40 } });
    expect(s().panels[1]).toMatchObject({ cols: 120, rows: 39 });
    s().zoomToggle();
    expect(s().layout.zoomed).toBeUndefined();
    expect(s().panels[1]).toMatchObject({ cols: 53, rows: 18 });
  });

  it('un-zooms the window when a panel opens (docs/spec.md, "Feed pane lifecycle")', () => {
    const { board } = drawnBoard();
    const s = () => board.getState();
    s().open({ label: 'a' }, T0);
    s().focusSet(1);
    s().zoomToggle();
    expect(s().layout.zoomed?.id).toBe(1);
    s().open({ label: 'b' }, T0 + 1);
    expect(s().zoom).toBeNull();
    expect(s().layout.zoomed).toBeUndefined();
    expect(s().focus).toBe(1);
    expect(s().layout.panels.map((p) => p.id)).toEqual([1, 2]);
  });
});

describe('what the clock needs to know', () => {
  it('has nothing pending until output waits, and wakes its clock once per flush, not per token', () => {
    const { board } = drawnBoard();
    const s = () => board.getState();
    let wakes = 0;
    s().onWake(() => wakes++);
    expect(s().active()).toBe(false);
    const id = s().open({ label: 'a' }, T0);
    expect(wakes).toBe(1); // a record: the watchdog runs again
    expect(s().active()).toBe(true);
    expect(s().pending()).toBe(false);
    for (let i = 0; i < 50; i++) s().emit(id, { type: 'text', text: `line ${i}\n` }, T0 + i);
    expect(s().pending()).toBe(true);
    expect(wakes).toBe(2);
    s().flush(T0 + 100);
    expect(s().pending()).toBe(false);
    s().emit(id, { type: 'text', text: 'more\n' }, T0 + 101);
    expect(wakes).toBe(3);
  });

  it('keeps a header and a view unchanged while its second and counters are', () => {
    const { board } = drawnBoard();
    const s = () => board.getState();
    const id = s().open({ label: 'a' }, T0);
    s().emit(id, { type: 'text', text: 'x\n' }, T0 + 10);
    s().flush(T0 + 100);
    const before = s().panels[0];
    s().emit(id, { type: 'text', text: 'y\n' }, T0 + 200);
    s().flush(T0 + 300);
    expect(s().panels[0]).toBe(before);
    s().emit(id, { type: 'text', text: 'z\n' }, T0 + 1200);
    s().flush(T0 + 1300);
    expect(s().panels[0]).not.toBe(before);
    expect(s().panels[0]?.header).toContain('1s');
  });

  it('publishes only the panels on a tick that decided nothing: a new header under the same layout', () => {
    const { board } = drawnBoard();
    const s = () => board.getState();
    s().open({ label: 'a' }, T0);
    s().open({ label: 'b' }, T0);
    const before = s();
    s().tick(T0 + 5_000);
    expect(s()).not.toBe(before);
    expect(s().layout).toBe(before.layout);
    expect(s().panels.map((p) => p.header)).toEqual([' ● a · running · 5s', ' ● b · running · 5s']);
    // A tick that decides (both go idle) still publishes it all: the header says so.
    s().tick(T0 + ORCH_IDLE_WARN);
    expect(s().panels.map((p) => p.state)).toEqual(['idle', 'idle']);
    expect(s().panels[0]?.header).toBe(' ◌ a · idle · 1m00s');
  });

  it("publishes nothing on a tick that changes nothing shown (a finished panel's time stands still)", () => {
    const { board } = drawnBoard();
    const s = () => board.getState();
    const id = s().open({ label: 'a' }, T0);
    s().finish(id, 'done', 'ok', T0 + 3_000);
    s().tick(T0 + 4_000);
    let published = 0;
    const off = board.subscribe(() => published++);
    s().tick(T0 + 5_000);
    s().tick(T0 + 6_000);
    off();
    expect(published).toBe(0);
    expect(s().panels[0]?.header).toContain('3s');
  });
});

describe('feed pane headers', () => {
  it('publishes a header-only feed op on the next flush, without waiting for bytes or a tick', () => {
    const { board } = drawnBoard();
    const id = board.getState().open({ kind: 'feed', label: 'ext', header: ' ● ext · running' }, T0);
    board.getState().feed(id, { header: ' ✓ ext · done', state: 'done' }, T0 + 100);
    board.getState().flush(T0 + 100);
    expect(board.getState().panels[0]).toMatchObject({ header: ' ✓ ext · done', state: 'done' });
  });
});
