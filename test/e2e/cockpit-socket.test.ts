/**
 * The whole cockpit as a user runs it, in a real tmux session: the shell in
 * the main pane finds the control socket in TAI_PLEXER_SOCKET, `tai spawn`
 * from there opens a supervised panel that streams and finishes, `tai vpane`
 * opens and feeds a feed pane, `tai status` sees both, and `tai cancel`
 * stops a running agent. Waits on conditions read with capture-pane.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { untilPasses, type Pace } from '../helpers/until.js';
import { endCockpits } from '../helpers/cockpit-servers.js';
import { testEnv } from '../helpers/test-env.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(ROOT, 'dist/src/cli.js');
const hasTmux = spawnSync('tmux', ['-V']).status === 0;
const server = `tai-e2e-sock-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
const dir = mkdtempSync(join(tmpdir(), 'tai-e2e-sock-'));

const tmux = (...args: string[]): string => execFileSync('tmux', ['-L', server, '-f', '/dev/null', ...args], { encoding: 'utf8', env: testEnv() });
const screen = (): string[] => tmux('capture-pane', '-p', '-t', 'e2e').split('\n').slice(0, 40);
/** The main pane's text (left of the separator) and the right column's. */
const left = (): string => screen().map((r) => [...r].slice(0, 66).join('').trimEnd()).join('\n');
const right = (): string => screen().map((r) => [...r].slice(67).join('').trimEnd()).join('\n');
const keys = (...k: string[]): void => void tmux('send-keys', '-t', 'e2e', ...k);
/** Each look runs capture-pane (a tmux process): look every 100 ms, for 20 s at most. */
const TMUX: Pace = { timeout: 20_000, interval: 100 };

describe.skipIf(!hasTmux)('the cockpit and its control socket', () => {
  beforeAll(() => {
    if (!existsSync(CLI)) execFileSync('npx', ['tsc', '-p', '.'], { cwd: ROOT, stdio: 'ignore' });
    const run = join(dir, 'run');
    mkdirSync(run, { mode: 0o700 });
    tmux(
      'new-session', '-d', '-s', 'e2e', '-x', '120', '-y', '40',
      '-e', `XDG_STATE_HOME=${join(dir, 'state')}`,
      '-e', `XDG_RUNTIME_DIR=${run}`,
      '-e', 'NODE_ENV=production',
      `node ${CLI} -- bash --norc --noprofile`,
    );
    tmux('set-option', '-t', 'e2e', 'status', 'off');
  }, 120_000);

  afterAll(async () => {
    spawnSync('tmux', ['-L', server, 'kill-server'], { env: testEnv() });
    await endCockpits({ XDG_RUNTIME_DIR: join(dir, 'run') }); // servers outlive their terminals: end the ones this file started
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts agents and feed panes from the shell inside it', async () => {
    keys(`PS1='$ '; tai() { node ${CLI} "$@"; }; clear`, 'Enter');
    keys('test -S "$TAI_PLEXER_SOCKET" && echo SOCKET-$TAI_PLEXER_ACTIVE-$TAI_PLEXER_PANE', 'Enter');
    await untilPasses(() => expect(left()).toContain('SOCKET-1-0'), TMUX);

    keys(`tai spawn --label counter -- sh -c 'for i in 1 2 3; do echo line-$i; done'`, 'Enter');
    await untilPasses(() => expect(right()).toMatch(/^ ✓ counter · done · \d+s/), TMUX);
    // The header is published at once, the output on the next flush.
    await untilPasses(() => expect(right()).toContain('line-3'), TMUX);
    await untilPasses(() => expect(left()).toMatch(/tai: agent #1 done/), TMUX);

    keys(`tai vpane open --label ext --header ' ● ext · running'`, 'Enter');
    await untilPasses(() => expect(right()).toContain(' ● ext · running'), TMUX);
    keys(`tai vpane write 2 'hello from outside'`, 'Enter');
    await untilPasses(() => expect(right()).toContain('hello from outside'), TMUX);

    keys(`tai spawn --detach --label sleeper -- sleep 300`, 'Enter');
    await untilPasses(() => expect(right()).toMatch(/ ● sleeper · running/), TMUX);
    keys('tai status', 'Enter');
    await untilPasses(() => expect(left()).toMatch(/#3 +running .*sleeper/), TMUX);
    keys('tai cancel 3', 'Enter');
    await untilPasses(() => expect(right()).toMatch(/ ⊘ sleeper · cancelled/), TMUX);

    keys('exit', 'Enter');
    await untilPasses(() => expect(spawnSync('tmux', ['-L', server, 'has-session', '-t', 'e2e'], { env: testEnv() }).status).not.toBe(0), TMUX);
  }, 60_000);
});
