/**
 * A finished agent opened from the agent list (docs/cockpit.md, "The agent
 * list") stays on the board until the user closes it: the reader's panel
 * never leaves under their eyes, whether it had left the board already or
 * was still lingering when it was opened.
 */
import { describe, expect, it } from 'vitest';
import { createBoard } from '../../store/board.js';
import { ORCH_LINGER } from '../../src/core/policy.js';
import { XtermScreen } from '../../src/io/terminal/screen.js';

const T0 = 1_000_000;

describe('a finished agent opened from the agent list', () => {
  it('is not taken away at the end of the linger it was opened in, zoomed or un-zoomed, until the user closes it', () => {
    const board = createBoard({ cols: 120, rows: 40, createScreen: (c, r) => new XtermScreen(c, r) });
    const s = board.getState;
    const id = s().open({ label: 'quick' }, T0);
    s().finish(id, 'done', 'ok', T0 + 1);
    // Still lingering when the list opens it.
    expect(s().reveal(id, T0 + 5_000)).toBe(true);
    expect(s().layout.zoomed?.id).toBe(id);
    s().tick(T0 + 1 + ORCH_LINGER + 1);
    expect(s().layout.zoomed?.id).toBe(id);
    s().zoomToggle();
    s().tick(T0 + 10 * ORCH_LINGER);
    expect(s().panels.map((p) => p.id)).toEqual([id]);
    expect(s().layout.panels.map((p) => p.id)).toEqual([id]);
  });
});
