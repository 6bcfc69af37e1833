/**
 * The words of the cockpit as a person meets them through the real key path,
 * in a real tmux (a private server with an environment of its own, always
 * killed): the built `tai` around bash, keys sent with send-keys, the screen
 * read with capture-pane. One word per thing: the status line and the agent
 * list name an ended agent's state alike, and a lane's diff view is a view,
 * not an agent. Waits on conditions, never on time.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tmuxEnv } from '../helpers/test-env.js';
import { TAI_CLI as CLI } from '../helpers/tai-cli.js';
import { buildCli, hasTmux, tmuxFolder, TmuxServer, type TmuxSession } from '../helpers/tmux-session.js';

const dir = tmuxFolder('tai-words-');
/** The tmux server's whole environment (test/helpers/test-env.ts), with git's identity for the lane. */
const ENV = tmuxEnv(dir, {
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
});
const server = new TmuxServer('tai-words', ENV);
let term: TmuxSession;

const screen = (): string[] => term.screen();
const text = (): string => term.text();
/** The status line: the last row of the 40-row window. */
const status = (): string => screen()[39] ?? '';
const keys = (...k: string[]): void => term.keys(...k);
const type = (s: string): void => term.type(s);
const PREFIX = 'C-]';

describe.skipIf(!hasTmux)('the words of the cockpit in tmux', () => {
  beforeAll(() => {
    buildCli();
    term = server.start('w');
  }, 120_000);

  beforeEach(() => {
    term.resize(120, 40);
  });

  afterAll(() => server.end(dir));

  it('names an ended agent by the same word on the status line, in its header and in the agent list', async () => {
    await term.startTai();
    type(`node ${CLI} spawn --label fine -- true; node ${CLI} spawn --label broke -- sh -c 'exit 3'; echo SPAWNED\r`);
    await term.until(() => expect(text()).toMatch(/^SPAWNED/m));
    await term.until(() => expect(status()).toMatch(/│ 0 running · 1 done · 1 failed /));
    expect(status()).not.toContain('stopped');
    await term.until(() => expect(text()).toMatch(/│ . broke · failed/));
    keys(PREFIX, 'w');
    await term.until(() => expect(screen()[0]).toMatch(/^ tai agents/));
    await term.until(() => expect(text()).toMatch(/#1 {2}fine · done/));
    expect(text()).toMatch(/#2 {2}broke · failed/);
    expect(text()).not.toContain('stopped');
    keys('q');
    await term.until(() => expect(screen()[0]).not.toMatch(/^ tai agents/));
    await term.endTai();
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
    await term.startTai();
    type(`node ${CLI} spawn --lane fix --label fixer -- sh -c 'echo new > n.txt'; echo SPAWNED=$?\r`);
    await term.until(() => expect(text()).toContain('SPAWNED=0'));
    await term.until(() => expect(text()).toMatch(/✓ fixer · done .*⎇ fix · 1 file/));
    await term.until(() => expect(status()).toMatch(/│ 0 running · 1 done /));
    keys(PREFIX, 'n'); // the focus on the lane's panel
    keys(PREFIX, 'D');
    await term.until(() => expect(text()).toContain('⎇ fix · diff against'));
    await term.until(() => expect(text()).toContain('+new'));
    // Zoomed on the view, the status line says so, and its counts are those of the one agent.
    expect(status()).toMatch(/│ zoomed: #2 \(C-\] z\) · 0 running · 1 done /);
    expect(status()).not.toMatch(/1 running/);
    keys('q'); // closes the view; the focus goes back to the main pane
    await term.until(() => expect(text()).not.toContain('⎇ fix · diff against'));
    expect(status()).toMatch(/│ 0 running · 1 done /);
    await term.endTai();
  }, 60_000);
});
