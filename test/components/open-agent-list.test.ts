/**
 * The open agent list (prefix + w) follows its rows, over a real board, pane
 * source, Ink and output stage drawn into a real headless terminal, as the
 * cockpit draws it (the status row patched by the output stage): a row that
 * changes with no panel changing is on the list at once, and a cost sample
 * that changes no row makes nothing again.
 */
import { describe, expect, it, vi } from 'vitest';
import { drawnCockpit } from '../helpers/drawn-cockpit.js';
import { XtermScreen } from '../../src/io/terminal/screen.js';
import { ORCH_LINGER } from '../../src/core/policy.js';

const T0 = 1_000_000;
const COLS = 120;
const ROWS = 30;

/** A drawn cockpit on a headless terminal, its clock at `t`; no cost sampler runs. */
function rig() {
  const shown = new XtermScreen(COLS, ROWS);
  const c = drawnCockpit(COLS, ROWS, T0, (data) => shown.write(data));
  const { board, list, drawing } = c;
  return {
    board: board.getState,
    list,
    /** The terminal's text, once what was written is parsed. */
    screen: async (): Promise<string> => {
      await shown.parsed();
      return shown.text().join('\n');
    },
    renders: c.renders,
    /** Moves the clock to `ms` after the start. */
    at: (ms: number): number => c.at(T0 + ms),
    stop: () => drawing.stop(),
  };
}

describe('the open agent list', () => {
  it("shows a lane dropped after its agent's panel left at once, with no cost sample", async () => {
    const r = rig();
    const id = r.board().open({ label: 'fixer', task: 'fix it' }, r.at(0));
    r.board().tag(id, '⎇ fix · 1 file +1 −0', r.at(1));
    r.board().finish(id, 'done', 'ok', r.at(2));
    r.board().tick(r.at(2 + ORCH_LINGER));
    expect(r.board().panels).toHaveLength(0);
    r.list.getState().show(id);
    await vi.waitFor(async () => expect(await r.screen()).toMatch(/✓ #1 {2}fixer · done · 0s · ⎇ fix · 1 file \+1 −0/));
    r.board().tag(id, '⎇ fix · dropped', r.at(3 + ORCH_LINGER));
    await vi.waitFor(async () => expect(await r.screen()).toMatch(/✓ #1 {2}fixer · done · 0s · ⎇ fix · dropped/));
    r.stop();
  });

  it("moves a running agent's elapsed time at the board's tick, with no cost sample", async () => {
    const r = rig();
    const id = r.board().open({ label: 'runner' }, r.at(0));
    r.list.getState().show(id);
    await vi.waitFor(async () => expect(await r.screen()).toMatch(/#1 {2}runner · running · 0s/));
    r.board().tick(r.at(2_000));
    await vi.waitFor(async () => expect(await r.screen()).toMatch(/#1 {2}runner · running · 2s/));
    r.stop();
  });

  it('makes nothing again for a cost sample when no row changed: only the status row is patched', async () => {
    const r = rig();
    const id = r.board().open({ label: 'ended' }, r.at(0));
    r.board().finish(id, 'done', 'ok', r.at(1));
    r.list.getState().show(id);
    await vi.waitFor(async () => expect(await r.screen()).toMatch(/#1 {2}ended · done/));
    await new Promise((resolve) => setImmediate(resolve)); // the list's own render is drawn in the turn after
    const before = r.renders();
    r.list.getState().measured(new Map(), { cpu: 7, rssBytes: 84 * 1024 * 1024 });
    expect((await r.screen()).split('\n').at(-1)).toMatch(/tai cpu 7% · 84 MB/);
    await new Promise((resolve) => setImmediate(resolve)); // an Ink render would have come in the turn after
    expect(r.renders()).toBe(before);
    r.stop();
  });
});
