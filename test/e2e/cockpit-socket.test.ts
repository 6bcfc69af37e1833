/**
 * The whole cockpit as a user runs it, in a real tmux session: the shell in
 * the main pane finds the control socket in TAI_PLEXER_SOCKET, `tai spawn`
 * from there opens a supervised panel that streams and finishes, `tai vpane`
 * opens and feeds a feed pane, `tai status` sees both, and `tai cancel`
 * stops a running agent. Waits on conditions read with capture-pane.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEnv } from '../helpers/test-env.js';
import { TAI_CLI as CLI } from '../helpers/tai-cli.js';
import { buildCli, hasTmux, tmuxFolder, TmuxServer, type TmuxSession } from '../helpers/tmux-session.js';

const dir = tmuxFolder('tai-e2e-sock-');
/** The tmux server's whole environment (test/helpers/test-env.ts): nothing of the caller's. */
const server = new TmuxServer('tai-e2e-sock', testEnv());
let e2e: TmuxSession;

/** The main pane's text (left of the separator) and the right column's. */
const left = (): string => e2e.columns(0, 66);
const right = (): string => e2e.columns(67);
const keys = (...k: string[]): void => e2e.keys(...k);

describe.skipIf(!hasTmux)('the cockpit and its control socket', () => {
  beforeAll(() => {
    buildCli();
    const run = join(dir, 'run');
    e2e = server.start('e2e', {
      env: { XDG_STATE_HOME: join(dir, 'state'), XDG_RUNTIME_DIR: run, NODE_ENV: 'production' },
      command: `node ${CLI} -- bash --norc --noprofile`,
    });
  }, 120_000);

  afterAll(() => server.end(dir));

  it('starts agents and feed panes from the shell inside it', async () => {
    keys(`PS1='$ '; tai() { node ${CLI} "$@"; }; clear`, 'Enter');
    keys('test -S "$TAI_PLEXER_SOCKET" && echo SOCKET-$TAI_PLEXER_ACTIVE-$TAI_PLEXER_PANE', 'Enter');
    await e2e.until(() => expect(left()).toContain('SOCKET-1-0'));

    keys(`tai spawn --label counter -- sh -c 'for i in 1 2 3; do echo line-$i; done'`, 'Enter');
    await e2e.until(() => expect(right()).toMatch(/^ ✓ counter · done · \d+s/));
    // The header is published at once, the output on the next flush.
    await e2e.until(() => expect(right()).toContain('line-3'));
    await e2e.until(() => expect(left()).toMatch(/tai: agent #1 done/));

    keys(`tai vpane open --label ext --header ' ● ext · running'`, 'Enter');
    await e2e.until(() => expect(right()).toContain(' ● ext · running'));
    keys(`tai vpane write 2 'hello from outside'`, 'Enter');
    await e2e.until(() => expect(right()).toContain('hello from outside'));

    keys(`tai spawn --detach --label sleeper -- sleep 300`, 'Enter');
    await e2e.until(() => expect(right()).toMatch(/ ● sleeper · running/));
    keys('tai status', 'Enter');
    await e2e.until(() => expect(left()).toMatch(/#3 +running .*sleeper/));
    keys('tai cancel 3', 'Enter');
    await e2e.until(() => expect(right()).toMatch(/ ⊘ sleeper · cancelled/));

    keys('exit', 'Enter');
    await e2e.until(() => expect(server.has('e2e')).toBe(false));
  }, 60_000);
});
