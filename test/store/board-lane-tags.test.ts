/**
 * A finished agent's tag and lines after its panel left the board
 * (store/board-lifecycle.ts, docs/lanes.md "Undoing a drop"): a lane dropped
 * then shows `⎇ NAME · dropped` in the agent list at once, and its kept
 * transcript, reopened, holds the undrop line.
 */
import { describe, expect, it } from 'vitest';
import { createBoard } from '../../store/board.js';
import { ORCH_FLUSH_INTERVAL, ORCH_LINGER } from '../../src/core/policy.js';
import { XtermScreen } from '../../src/io/terminal/screen.js';

const T0 = 1_000_000;
const HINT = 'the lane fix was dropped: tai lane undrop fix brings it back';

/** A board with real screens, keeping `kept` finished transcripts for the agent list. */
function drawnBoard(kept?: number) {
  const screens: XtermScreen[] = [];
  const board = createBoard({
    cols: 120,
    rows: 40,
    ...(kept === undefined ? {} : { keptTranscripts: kept }),
    createScreen: (c, r) => {
      const s = new XtermScreen(c, r);
      screens.push(s);
      return s;
    },
  });
  return { board, screens, s: board.getState };
}

/** A lane's agent that finished and whose panel left the board after its linger. */
function endedAndGone(b: ReturnType<typeof drawnBoard>): number {
  const id = b.s().open({ label: 'fixer', task: 'fix it' }, T0);
  b.s().tag(id, '⎇ fix · 1 file +1 −0', T0 + 1);
  b.s().finish(id, 'done', 'ok', T0 + 2);
  b.s().tick(T0 + 2 + ORCH_LINGER);
  expect(b.s().panels.map((p) => p.id)).not.toContain(id);
  return id;
}

describe('a lane dropped after its panel left the board', () => {
  it('shows the dropped tag in the agent list at once, and the undrop line when its transcript is reopened', async () => {
    const b = drawnBoard();
    const id = endedAndGone(b);
    expect(b.s().transcriptKept(id)).toBe(true);
    const now = T0 + 3 + ORCH_LINGER;
    b.s().flush(now); // the clock is asleep: nothing on the board to flush
    b.s().tag(id, '⎇ fix · dropped', now);
    b.s().write(id, `\r\n${HINT}\r\n`, now);
    expect(b.s().status(now).agents.find((r) => r.id === id)?.tag).toBe('⎇ fix · dropped');

    // The clock flushes only the board's panels: the reopened one wakes it (a wake-up spent while it was off the board would leave it asleep).
    let woke = 0;
    b.s().onWake(() => woke++);
    expect(b.s().reveal(id, now + 1)).toBe(true);
    expect(woke).toBeGreaterThan(0);
    expect(b.s().panels.find((p) => p.id === id)?.header).toContain('⎇ fix · dropped');
    b.s().flush(now + 1 + ORCH_FLUSH_INTERVAL);
    const screen = b.s().screenOf(id) as XtermScreen;
    await screen.parsed();
    expect(screen.text().join(' ').replace(/\s+/g, ' ')).toContain(HINT);
  });

  it('shows the dropped tag in the agent list when no transcript of it is kept, and refuses a line for it as for any panel gone', () => {
    const b = drawnBoard(0);
    const id = endedAndGone(b);
    expect(b.s().transcriptKept(id)).toBe(false);
    const now = T0 + 3 + ORCH_LINGER;
    b.s().tag(id, '⎇ fix · dropped', now);
    expect(b.s().status(now).agents.find((r) => r.id === id)?.tag).toBe('⎇ fix · dropped');
    expect(() => b.s().write(id, `${HINT}\r\n`, now)).toThrow(/no such/i);
  });
});
