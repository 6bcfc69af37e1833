/**
 * Places on screen as a person meets them, in a real tmux (a private server
 * with an environment of its own, always killed): a finished agent opened
 * from the agent list stays until it is closed, even when it was still
 * lingering, and a running agent takes the place of a finished one
 * (docs/cockpit.md, "Places: a running agent first"). Waits on conditions,
 * never on time; the linger it outlasts is the board's own 20 s.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORCH_LINGER } from '../../src/core/policy.js';
import { untilPasses, type Pace } from '../helpers/until.js';
import { tmuxEnv } from '../helpers/test-env.js';
import { endCockpits } from '../helpers/cockpit-servers.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(ROOT, 'dist/src/cli.js');
const hasTmux = spawnSync('tmux', ['-V']).status === 0;
const server = `tai-places-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
const dir = mkdtempSync(join(tmpdir(), 'tai-places-'));
const ENV = tmuxEnv(dir);

const tmux = (...args: string[]): string => execFileSync('tmux', ['-L', server, '-f', '/dev/null', ...args], { encoding: 'utf8', env: ENV });
const screen = (): string[] => tmux('capture-pane', '-p', '-t', 'p').split('\n');
/** The panels' column (right of the separator at 120x40). */
const panelText = (): string => screen().map((r) => [...r].slice(66).join('')).join('\n');
const keys = (...k: string[]): void => void tmux('send-keys', '-t', 'p', ...k);
const type = (s: string): void => void tmux('send-keys', '-t', 'p', '-l', s);
const PREFIX = 'C-]';
const TMUX: Pace = { timeout: 20_000, interval: 100 };

describe.skipIf(!hasTmux)('places on screen in tmux', () => {
  beforeAll(async () => {
    if (!existsSync(CLI)) execFileSync('npx', ['tsc', '-p', '.'], { cwd: ROOT, stdio: 'ignore' });
    mkdirSync(join(dir, 'run'), { mode: 0o700 });
    tmux('new-session', '-d', '-s', 'p', '-x', '120', '-y', '40', 'bash --norc --noprofile');
    tmux('set-option', '-t', 'p', 'status', 'off');
    type(`clear; node ${CLI} -- bash --norc --noprofile; echo TAI-EXIT=$?\r`);
    await untilPasses(() => expect(tmux('display-message', '-p', '-t', 'p', '#{alternate_on}').trim()).toBe('1'), TMUX);
    type("PS1='in$ '\r");
    await untilPasses(() => expect(screen().some((r) => r.startsWith('in$'))).toBe(true), TMUX);
  }, 120_000);

  afterAll(async () => {
    spawnSync('tmux', ['-L', server, 'kill-server'], { env: ENV });
    await endCockpits({ XDG_RUNTIME_DIR: join(dir, 'run') });
    rmSync(dir, { recursive: true, force: true, maxRetries: 10 });
  });

  it('keeps a finished agent opened from the list while it lingered past its linger, and gives a running agent a finished one\'s place', async () => {
    type(`clear; node ${CLI} spawn --label quick -- echo hi; echo SPAWNED=$?\r`);
    await untilPasses(() => expect(screen().join('\n')).toContain('SPAWNED=0'), TMUX);
    const finished = Date.now();
    // Opened from the list while it still lingers, then un-zoomed.
    keys(PREFIX, 'w');
    await untilPasses(() => expect(screen().join('\n')).toMatch(/✓ #1 {2}quick · done/), TMUX);
    keys('Enter');
    await untilPasses(() => expect(screen()[0]).toMatch(/^ ✓ quick · done/), TMUX);
    keys(PREFIX, 'z');
    await untilPasses(() => expect(screen()[0]).toMatch(/│ ✓ quick · done/), TMUX);
    // Past the linger it finished with, the reader's panel is still there.
    await untilPasses(() => expect(Date.now() - finished).toBeGreaterThan(ORCH_LINGER + 3_000), { timeout: ORCH_LINGER + 10_000, interval: 500 });
    expect(screen()[0]).toMatch(/│ ✓ quick · done/);

    // Five running agents fill the column with it (six panels fit in 40 rows); a sixth takes the finished one's place.
    type(`clear; for i in 1 2 3 4 5 6; do node ${CLI} spawn --detach --label run$i -- sleep 300 >/dev/null; done; echo STARTED=$?\r`);
    await untilPasses(() => expect(screen().join('\n')).toContain('STARTED=0'), { timeout: 60_000, interval: 200 });
    await untilPasses(() => expect(panelText()).toContain('run6 · running'), TMUX);
    expect(panelText()).not.toContain('quick · done');
    expect(screen()[39]).not.toContain('hidden');
    // The finished agent is still in the list, its screen kept.
    keys(PREFIX, 'w');
    await untilPasses(() => expect(screen().join('\n')).toMatch(/✓ #1 {2}quick · done/), TMUX);
    keys('q');
  }, 120_000);
});
