/**
 * The words of the cockpit as a person meets them through the real key path,
 * in a real tmux (a private server with an environment of its own, always
 * killed): the built `tai` around bash, keys sent with send-keys, the screen
 * read with capture-pane. One word per thing: the status line and the agent
 * list name an ended agent's state alike, and a lane's diff view is a view,
 * not an agent. Waits on conditions, never on time.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { untilPasses, type Pace } from '../helpers/until.js';
import { tmuxEnv } from '../helpers/test-env.js';
import { endCockpits } from '../helpers/cockpit-servers.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(ROOT, 'dist/src/cli.js');
const hasTmux = spawnSync('tmux', ['-V']).status === 0;
const server = `tai-words-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
const dir = mkdtempSync(join(tmpdir(), 'tai-words-'));
/** The tmux server's whole environment (test/helpers/test-env.ts), with git's identity for the lane. */
const ENV = tmuxEnv(dir, {
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
});

const tmux = (...args: string[]): string => execFileSync('tmux', ['-L', server, '-f', '/dev/null', ...args], { encoding: 'utf8', env: ENV });
const screen = (): string[] => tmux('capture-pane', '-p', '-t', 'w').split('\n');
const text = (): string => screen().join('\n');
/** The status line: the last row of the 40-row window. */
const status = (): string => screen()[39] ?? '';
const keys = (...k: string[]): void => void tmux('send-keys', '-t', 'w', ...k);
const type = (s: string): void => void tmux('send-keys', '-t', 'w', '-l', s);
const PREFIX = 'C-]';
const TMUX: Pace = { timeout: 20_000, interval: 100 };

/** Starts tai around a plain bash in the session and waits for its prompt in the main pane. */
async function startTai(): Promise<void> {
  type(`clear; node ${CLI} -- bash --norc --noprofile; echo TAI-EXIT=$?\r`);
  await untilPasses(() => expect(tmux('display-message', '-p', '-t', 'w', '#{alternate_on}').trim()).toBe('1'), TMUX);
  type("PS1='in$ '\r");
  await untilPasses(() => expect(screen().some((r) => r.startsWith('in$'))).toBe(true), TMUX);
}

/** Leaves tai from its main pane and waits for the outer shell. */
async function endTai(): Promise<void> {
  type('exit\r');
  await untilPasses(() => expect(text()).toContain('TAI-EXIT='), TMUX);
}

describe.skipIf(!hasTmux)('the words of the cockpit in tmux', () => {
  beforeAll(() => {
    if (!existsSync(CLI)) execFileSync('npx', ['tsc', '-p', '.'], { cwd: ROOT, stdio: 'ignore' });
    mkdirSync(join(dir, 'run'), { mode: 0o700 });
    tmux('new-session', '-d', '-s', 'w', '-x', '120', '-y', '40', 'bash --norc --noprofile');
    tmux('set-option', '-t', 'w', 'status', 'off');
  }, 120_000);

  beforeEach(() => {
    tmux('resize-window', '-t', 'w', '-x', '120', '-y', '40');
  });

  afterAll(async () => {
    spawnSync('tmux', ['-L', server, 'kill-server'], { env: ENV });
    await endCockpits({ XDG_RUNTIME_DIR: join(dir, 'run') }); // servers outlive their terminals: end the ones this file started
    rmSync(dir, { recursive: true, force: true, maxRetries: 10 });
  });

  it('names an ended agent by the same word on the status line, in its header and in the agent list', async () => {
    await startTai();
    type(`node ${CLI} spawn --label fine -- true; node ${CLI} spawn --label broke -- sh -c 'exit 3'; echo SPAWNED\r`);
    await untilPasses(() => expect(text()).toMatch(/^SPAWNED/m), TMUX);
    await untilPasses(() => expect(status()).toMatch(/│ 0 running · 1 done · 1 failed /), TMUX);
    expect(status()).not.toContain('stopped');
    await untilPasses(() => expect(text()).toMatch(/│ . broke · failed/), TMUX);
    keys(PREFIX, 'w');
    await untilPasses(() => expect(screen()[0]).toMatch(/^ tai agents/), TMUX);
    await untilPasses(() => expect(text()).toMatch(/#1 {2}fine · done/), TMUX);
    expect(text()).toMatch(/#2 {2}broke · failed/);
    expect(text()).not.toContain('stopped');
    keys('q');
    await untilPasses(() => expect(screen()[0]).not.toMatch(/^ tai agents/), TMUX);
    await endTai();
  }, 60_000);

  it("counts a lane's diff view, opened with prefix + D, as no agent: the status line's counts stay as they were", async () => {
    const repo = join(dir, 'repo');
    mkdirSync(repo);
    const git = (...args: string[]): string => execFileSync('git', args, { cwd: repo, env: ENV, encoding: 'utf8' });
    git('init', '-q', '-b', 'main');
    writeFileSync(join(repo, 'README.md'), 'hello\n');
    git('add', '.');
    git('commit', '-q', '-m', 'first');
    type(`cd ${repo}\r`);
    await startTai();
    type(`node ${CLI} spawn --lane fix --label fixer -- sh -c 'echo new > n.txt'; echo SPAWNED=$?\r`);
    await untilPasses(() => expect(text()).toContain('SPAWNED=0'), TMUX);
    await untilPasses(() => expect(text()).toMatch(/✓ fixer · done .*⎇ fix · 1 file/), TMUX);
    await untilPasses(() => expect(status()).toMatch(/│ 0 running · 1 done /), TMUX);
    keys(PREFIX, 'n'); // the focus on the lane's panel
    keys(PREFIX, 'D');
    await untilPasses(() => expect(text()).toContain('⎇ fix · diff against'), TMUX);
    await untilPasses(() => expect(text()).toContain('+new'), TMUX);
    // Zoomed on the view, the status line says so, and its counts are those of the one agent.
    expect(status()).toMatch(/│ zoomed: #2 \(C-\] z\) · 0 running · 1 done /);
    expect(status()).not.toMatch(/1 running/);
    keys('q'); // closes the view; the focus goes back to the main pane
    await untilPasses(() => expect(text()).not.toContain('⎇ fix · diff against'), TMUX);
    expect(status()).toMatch(/│ 0 running · 1 done /);
    await endTai();
  }, 60_000);
});
