/**
 * The cockpit's drawing over a real board, pane source, Ink and output
 * stage, into a real headless terminal: a second's new header text is drawn
 * by patching those rows alone, and never over what covers them; Ink's
 * renders are told (the idle collection waits for them to be quiet).
 */
import { describe, expect, it, vi } from 'vitest';
import { drawnCockpit } from '../../helpers/drawn-cockpit.js';
import { XtermScreen } from '../../../src/io/terminal/screen.js';

const T0 = 1_000_000;
const COLS = 120;
const ROWS = 30;

/** A cockpit's drawing with two agents, on a terminal that is a headless xterm. */
async function rig() {
  const shown = new XtermScreen(COLS, ROWS);
  const writes: string[] = [];
  const c = drawnCockpit(COLS, ROWS, T0, (data) => {
    writes.push(data);
    shown.write(data);
  });
  const { board, list, sign, drawing } = c;
  const ids = [board.getState().open({ label: 'alpha' }, T0), board.getState().open({ label: 'beta' }, T0)];
  const screen = async (): Promise<string> => {
    await shown.parsed();
    return shown.text().join('\n');
  };
  // Drawn whole: the headers (overlays) and Ink's chrome (the separators between the panes).
  await vi.waitFor(async () => {
    const text = await screen();
    expect(text).toMatch(/● beta · running · 0s/);
    expect(text).toMatch(/─{20}/);
    expect(text.split('\n').slice(0, -1).every((row) => row.includes('│') || row.includes('─'))).toBe(true);
  });
  return {
    board,
    list,
    sign,
    writes,
    ids,
    screen,
    /** How many times Ink has rendered the chrome. */
    renders: c.renders,
    stop: () => drawing.stop(),
    /** The board's tick, `ms` after the start. */
    tick(ms: number) {
      board.getState().tick(c.at(T0 + ms));
    },
  };
}

describe("the cockpit's drawing of a second", () => {
  it("patches the headers' new time alone, in the tick's own turn", async () => {
    const r = await rig();
    r.writes.length = 0;
    r.tick(1_000);
    expect(r.writes).toHaveLength(1); // drawn at once, one write
    expect(r.writes[0].length).toBeLessThan(120); // the two digits and their places, not a frame of rows
    const text = await r.screen();
    expect(text).toMatch(/● alpha · running · 1s/);
    expect(text).toMatch(/● beta · running · 1s/);
    r.stop();
  });

  it('draws nothing over the agent list while it covers the panels, and the headers again once it closes', async () => {
    const r = await rig();
    r.list.getState().show(0);
    await vi.waitFor(async () => expect(await r.screen()).toMatch(/tai agents/));
    const covered = await r.screen();
    expect(covered).not.toMatch(/· [12]s/);
    r.tick(1_000);
    r.tick(2_000);
    // The list's own rows move with the clock; the panels' headers are never drawn over it.
    await vi.waitFor(async () => expect(await r.screen()).toMatch(/#2 {2}beta · running · 2s/));
    expect(await r.screen()).not.toMatch(/● (alpha|beta) · running/);
    r.list.getState().close();
    await vi.waitFor(async () => expect(await r.screen()).toMatch(/● alpha · running · 2s/));
    r.tick(3_000);
    await vi.waitFor(async () => expect(await r.screen()).toMatch(/● beta · running · 3s/));
    r.stop();
  });

  it("tells of Ink's renders: a panel's turn to idle is one, a second's elapsed time is not", async () => {
    const r = await rig();
    await vi.waitFor(() => expect(r.renders()).toBeGreaterThan(0));
    const before = r.renders();
    r.tick(1_000);
    r.tick(2_000);
    await r.screen();
    await new Promise((resolve) => setImmediate(resolve)); // an Ink render would have come in the turn after
    expect(r.renders()).toBe(before);
    r.tick(61_000); // 60 s without an event: the panels show idle (docs/spec.md, "Panel state machine"), their chrome changes
    await vi.waitFor(async () => expect(await r.screen()).toMatch(/◌ alpha · idle · 1m01s/));
    expect(r.renders()).toBeGreaterThan(before);
    r.stop();
  });
});

describe("the cockpit's drawing of its status line", () => {
  it("patches the cockpit's own cost into the status row with no render of the chrome", async () => {
    const r = await rig();
    await vi.waitFor(() => expect(r.renders()).toBeGreaterThan(0));
    const before = r.renders();
    r.writes.length = 0;
    r.list.getState().measured(new Map(), { cpu: 7, rssBytes: 84 * 1024 * 1024 });
    expect(r.writes).toHaveLength(1); // patched at once, one write
    expect(r.writes[0].length).toBeLessThan(200); // the status row's new cells, not a frame
    expect((await r.screen()).split('\n').at(-1)).toMatch(/tai cpu 7% · 84 MB/);
    r.list.getState().measured(new Map(), { cpu: 12, rssBytes: 90 * 1024 * 1024 });
    expect((await r.screen()).split('\n').at(-1)).toMatch(/tai cpu 12% · 90 MB/);
    await new Promise((resolve) => setImmediate(resolve)); // an Ink render would have come in the turn after
    expect(r.renders()).toBe(before);
    r.stop();
  });

  it('lights the prefix sign on the status row with no render, and keeps the cost through the next full frame', async () => {
    const r = await rig();
    r.list.getState().measured(new Map(), { cpu: 3, rssBytes: 80 * 1024 * 1024 });
    await vi.waitFor(() => expect(r.renders()).toBeGreaterThan(0));
    const before = r.renders();
    r.sign.getState().set(true);
    expect((await r.screen()).split('\n').at(-1)).toMatch(/press a key/);
    await new Promise((resolve) => setImmediate(resolve));
    expect(r.renders()).toBe(before);
    r.sign.getState().set(false);
    r.tick(61_000); // the panels turn idle: a render of the chrome and a full frame
    await vi.waitFor(async () => expect(await r.screen()).toMatch(/◌ alpha · idle/));
    expect(r.renders()).toBeGreaterThan(before);
    const last = (await r.screen()).split('\n').at(-1);
    expect(last).toMatch(/tai cpu 3% · 80 MB/);
    expect(last).not.toMatch(/press a key/);
    r.stop();
  });
});

describe("the status line's work per publish", () => {
  it('counts the agents without making the rows of the agents that ended, however many are kept', async () => {
    const r = await rig();
    const s = r.board.getState();
    for (let i = 0; i < 64; i++) {
      const id = s.open({ label: `ended ${i}` }, T0);
      s.finish(id, 'done', 'ok', T0);
      s.close(id, T0);
    }
    await vi.waitFor(async () => expect(await r.screen()).toMatch(/2 running · 64 done/));
    // Every call of `status` makes a row for each agent kept (the newest 64): the status line must not need it.
    let calls = 0;
    const status = r.board.getState().status;
    r.board.setState({
      status: (now: number) => {
        calls++;
        return status(now);
      },
    });
    const renders = r.renders();
    r.board.getState().finish(r.ids[0]!, 'failed', 'exit 1', T0 + 500);
    r.tick(1_000);
    await vi.waitFor(async () => expect(await r.screen()).toMatch(/1 running · 63 done · 1 failed/));
    expect(r.renders()).toBeGreaterThan(renders);
    expect(calls).toBe(0);
    r.stop();
  });
});
