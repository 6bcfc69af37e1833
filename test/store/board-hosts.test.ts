/**
 * Agents on other hosts on the board (docs/remote.md, "The cap per host"):
 * the board's cap of 8 counts this machine's agents only, and the panels
 * stay at most 8: a running agent past them is hidden (the agent list shows
 * it, the status line counts it) until a finished agent's panel is free.
 */
import { describe, expect, it } from 'vitest';
import { createBoard } from '../../store/board.js';
import { AgentsFullError } from '../../src/core/errors.js';
import { AGENTS_MAX_PARALLEL } from '../../src/core/policy.js';
import { REASON_TOO_MANY } from '../../src/core/panel/layout.js';
import { XtermScreen } from '../../src/io/terminal/screen.js';

const T0 = 1_000_000;

describe('agents on a host on the board', () => {
  it('are not counted in the local cap; past 8 panels they wait hidden, and take the panel of the first agent to finish', () => {
    const board = createBoard({ cols: 160, rows: 120, createScreen: (c, r) => new XtermScreen(c, r) });
    const s = board.getState;
    const local = Array.from({ length: AGENTS_MAX_PARALLEL }, (_, i) => s().open({ label: `local ${i}` }, T0));
    const far = [s().open({ label: 'far 1 @build', host: 'build' }, T0 + 1), s().open({ label: 'far 2 @build', host: 'build' }, T0 + 2)];
    expect(s().live).toBe(10);
    expect(s().layout.panels.map((p) => p.id)).toEqual(local);
    expect(s().layout.hidden).toEqual(far.map((id) => ({ id, reason: REASON_TOO_MANY })));
    expect(() => s().open({ label: 'local 9' }, T0 + 3)).toThrow(AgentsFullError);

    s().finish(local[2]!, 'done', 'ok', T0 + 4);
    expect(s().layout.panels.map((p) => p.id)).toContain(far[0]);
    expect(s().layout.panels.map((p) => p.id)).not.toContain(local[2]);
    expect(s().layout.hidden.map((h) => h.id)).toEqual([far[1]]);
    // The finished agent freed a local place too.
    expect(s().open({ label: 'local 9' }, T0 + 5)).toBeGreaterThan(0);
  });
});
