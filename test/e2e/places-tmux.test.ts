/**
 * Places on screen as a person meets them, in a real tmux (a private server
 * with an environment of its own, always killed): a finished agent opened
 * from the agent list stays until it is closed, even when it was still
 * lingering, and a running agent takes the place of a finished one
 * (docs/cockpit.md, "Places: a running agent first"). Waits on conditions,
 * never on time; the linger it outlasts is the board's own 20 s.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORCH_LINGER } from '../../src/core/policy.js';
import { tmuxEnv } from '../helpers/test-env.js';
import { TAI_CLI as CLI } from '../helpers/tai-cli.js';
import { buildCli, hasTmux, tmuxFolder, TmuxServer, type TmuxSession } from '../helpers/tmux-session.js';

const dir = tmuxFolder('tai-places-');
const ENV = tmuxEnv(dir);
const server = new TmuxServer('tai-places', ENV);
let term: TmuxSession;

const screen = (): string[] => term.screen();
/** The panels' column (right of the separator at 120x40). */
const panelText = (): string => term.columns(66);
const keys = (...k: string[]): void => term.keys(...k);
const type = (s: string): void => term.type(s);
const PREFIX = 'C-]';

describe.skipIf(!hasTmux)('places on screen in tmux', () => {
  beforeAll(async () => {
    buildCli();
    term = server.start('p');
    await term.startTai();
  }, 120_000);

  afterAll(() => server.end(dir));

  it('keeps a finished agent opened from the list while it lingered past its linger, and gives a running agent a finished one\'s place', async () => {
    type(`clear; node ${CLI} spawn --label quick -- echo hi; echo SPAWNED=$?\r`);
    await term.until(() => expect(term.text()).toContain('SPAWNED=0'));
    const finished = Date.now();
    // Opened from the list while it still lingers, then un-zoomed.
    keys(PREFIX, 'w');
    await term.until(() => expect(term.text()).toMatch(/✓ #1 {2}quick · done/));
    keys('Enter');
    await term.until(() => expect(screen()[0]).toMatch(/^ ✓ quick · done/));
    keys(PREFIX, 'z');
    await term.until(() => expect(screen()[0]).toMatch(/│ ✓ quick · done/));
    // Past the linger it finished with, the reader's panel is still there.
    await term.until(() => expect(Date.now() - finished).toBeGreaterThan(ORCH_LINGER + 3_000), { timeout: ORCH_LINGER + 10_000, interval: 500 });
    expect(screen()[0]).toMatch(/│ ✓ quick · done/);

    // Five running agents fill the column with it (six panels fit in 40 rows); a sixth takes the finished one's place.
    type(`clear; for i in 1 2 3 4 5 6; do node ${CLI} spawn --detach --label run$i -- sleep 300 >/dev/null; done; echo STARTED=$?\r`);
    await term.until(() => expect(term.text()).toContain('STARTED=0'), { timeout: 60_000, interval: 200 });
    await term.until(() => expect(panelText()).toContain('run6 · running'));
    expect(panelText()).not.toContain('quick · done');
    expect(screen()[39]).not.toContain('hidden');
    // The finished agent is still in the list, its screen kept.
    keys(PREFIX, 'w');
    await term.until(() => expect(term.text()).toMatch(/✓ #1 {2}quick · done/));
    keys('q');
  }, 120_000);
});
