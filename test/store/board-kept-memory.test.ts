/**
 * What the board keeps of a finished agent after its panel left (docs/cockpit.md,
 * "The agent list"): its transcript as its formatter's calls, not its screen,
 * whose scrollback costs far more than the text it shows; a reopened one gets
 * a new screen with the same text. A day of agents must not hold a screen per
 * kept transcript.
 */
import { describe, expect, it } from 'vitest';
import { createBoard } from '../../store/board.js';
import { ORCH_LINGER } from '../../src/core/policy.js';
import { XtermScreen } from '../../src/io/terminal/screen.js';

const T0 = 1_000_000;

/** A board on real screens that counts the screens alive (made and not disposed). */
function countingBoard() {
  const alive = new Set<XtermScreen>();
  const board = createBoard({
    cols: 120,
    rows: 40,
    createScreen: (c, r) => {
      const screen = new XtermScreen(c, r);
      alive.add(screen);
      const dispose = screen.dispose.bind(screen);
      screen.dispose = () => {
        alive.delete(screen);
        dispose();
      };
      return screen;
    },
  });
  return { board, alive };
}

/** Runs the board's clock until no output waits (each flush formats a bounded slice). */
async function settle(board: ReturnType<typeof createBoard>, now: number): Promise<void> {
  for (let i = 0; i < 200 && board.getState().flush(now); i++);
  for (const p of board.getState().panels) await (board.getState().screenOf(p.id) as XtermScreen | undefined)?.parsed();
}

describe('a finished agent kept for the agent list', () => {
  it('holds no screen once its panel left the board: after 20 agents ended, only the panels on the board have screens', async () => {
    const { board, alive } = countingBoard();
    const s = board.getState;
    let now = T0;
    for (let n = 1; n <= 20; n++) {
      const id = s().open({ label: `agent ${n}`, task: `task ${n}` }, now);
      for (let line = 0; line < 50; line++) s().emit(id, { type: 'text', text: `agent ${n} says line ${line}\n` }, (now += 10));
      await settle(board, now);
      s().finish(id, 'done', 'ok', (now += 10));
      s().tick((now += ORCH_LINGER + 1));
    }
    await settle(board, now);
    expect(s().panels).toEqual([]);
    // The agent list can still reopen the newest eight.
    for (let n = 13; n <= 20; n++) expect(s().transcriptKept(n)).toBe(true);
    expect(alive.size).toBe(0);
  });

  it('is reopened on a new screen that shows its text and its footer again, and gives that screen up when closed', async () => {
    const { board, alive } = countingBoard();
    const s = board.getState;
    let now = T0;
    const id = s().open({ label: 'kept', task: 'count to three' }, now);
    for (const word of ['one ', 'two ', 'three\n']) s().emit(id, { type: 'text', text: word }, (now += 10));
    s().write(id, 'a line written to its panel\r\n', (now += 10));
    await settle(board, now);
    s().finish(id, 'done', 'counted', (now += 10));
    s().tick((now += ORCH_LINGER + 1));
    expect(s().panels).toEqual([]);
    expect(alive.size).toBe(0);
    // A line written after the panel left (a lane dropped) is kept too.
    s().write(id, 'written while off the board\r\n', now);

    expect(s().reveal(id, (now += 10))).toBe(true);
    await settle(board, now);
    const shown = (s().screenOf(id) as XtermScreen).text().join('\n');
    expect(shown).toContain('count to three');
    expect(shown).toContain('one two three');
    expect(shown).toContain('a line written to its panel');
    expect(shown).toContain('counted');
    expect(shown).toContain('written while off the board');
    expect(alive.size).toBe(1);

    s().closeByUser(id, now);
    await settle(board, now);
    expect(s().transcriptKept(id)).toBe(true);
    expect(alive.size).toBe(0);
  });
});
