/**
 * Agent panels as a person meets them, in a real tmux (a private server with
 * an environment of its own, always killed): the built `tai` around bash,
 * keys sent with send-keys, the screen read with capture-pane. The agents
 * wait on files the test writes, never on time.
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
const server = `tai-panels-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
const dir = mkdtempSync(join(tmpdir(), 'tai-panels-'));
/** The tmux server's whole environment (test/helpers/test-env.ts), with git's identity for the lanes. */
const ENV = tmuxEnv(dir, {
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
});

const tmux = (...args: string[]): string => execFileSync('tmux', ['-L', server, '-f', '/dev/null', ...args], { encoding: 'utf8', env: ENV });
const screen = (): string[] => tmux('capture-pane', '-p', '-t', 'p').split('\n');
const text = (): string => screen().join('\n');
/** The agent column (right of the separator at 120x40: from column 67), right-trimmed. */
const panelRows = (): string[] => screen().map((r) => [...r].slice(67).join('').trimEnd());
const keys = (...k: string[]): void => void tmux('send-keys', '-t', 'p', ...k);
const type = (s: string): void => void tmux('send-keys', '-t', 'p', '-l', s);
const PREFIX = 'C-]';
const TMUX: Pace = { timeout: 20_000, interval: 100 };

/** Starts tai around a plain bash in the session and waits for its prompt in the main pane. */
async function startTai(): Promise<void> {
  type(`clear; node ${CLI} -- bash --norc --noprofile; echo TAI-EXIT=$?\r`);
  await untilPasses(() => expect(tmux('display-message', '-p', '-t', 'p', '#{alternate_on}').trim()).toBe('1'), TMUX);
  type("PS1='in$ '\r");
  await untilPasses(() => expect(screen().some((r) => r.startsWith('in$'))).toBe(true), TMUX);
}

/** Leaves tai from its main pane and waits for the outer shell. */
async function endTai(): Promise<void> {
  type('exit\r');
  await untilPasses(() => expect(text()).toContain('TAI-EXIT='), TMUX);
}

/** A paragraph of words of many lengths, far wider than a panel, narrower than the zoomed window twice over. */
function paragraph(tag: string): string {
  const words = ['tai', 'supervises', 'agents', 'in', 'panels', 'beside', 'the', 'shell', 'and', 'wraps', 'their', 'words', 'at', 'the', 'width'];
  return `${tag}: ${[...words, ...words.slice().reverse()].join(' ')}`;
}

describe.skipIf(!hasTmux)('agent panels in tmux', () => {
  beforeAll(() => {
    if (!existsSync(CLI)) execFileSync('npx', ['tsc', '-p', '.'], { cwd: ROOT, stdio: 'ignore' });
    mkdirSync(join(dir, 'run'), { mode: 0o700 });
    tmux('new-session', '-d', '-s', 'p', '-x', '120', '-y', '40', 'bash --norc --noprofile');
    tmux('set-option', '-t', 'p', 'status', 'off');
  }, 120_000);

  beforeEach(() => {
    tmux('resize-window', '-t', 'p', '-x', '120', '-y', '40');
  });

  afterAll(async () => {
    spawnSync('tmux', ['-L', server, 'kill-server'], { env: ENV });
    await endCockpits({ XDG_RUNTIME_DIR: join(dir, 'run') }); // servers outlive their terminals: end the ones this file started
    rmSync(dir, { recursive: true, force: true, maxRetries: 10 });
  });

  it('wraps by word, after the unzoom, the text an agent wrote while its panel was zoomed, exactly as text written at the narrow width', async () => {
    await startTai();
    const zoomedGate = join(dir, 'zoomed');
    const narrowGate = join(dir, 'narrow');
    const script = [
      `while [ ! -e ${zoomedGate} ]; do sleep 0.05; done; echo '${paragraph('one')}'`,
      `while [ ! -e ${narrowGate} ]; do sleep 0.05; done; echo '${paragraph('two')}'`,
      'sleep 600',
    ].join('; ');
    type(`node ${CLI} spawn --detach --label words -- sh -c "${script}"\r`);
    await untilPasses(() => expect(panelRows()[0]).toContain('words · running'), TMUX);
    keys(PREFIX, 'n');
    keys(PREFIX, 'z');
    await untilPasses(() => expect(screen()[0]).toMatch(/^ ● words · running/), TMUX);
    writeFileSync(zoomedGate, '');
    // Zoomed, the paragraph takes two lines of the window.
    await untilPasses(() => expect(text()).toContain('one: tai supervises agents'), TMUX);
    keys(PREFIX, 'z');
    await untilPasses(() => expect(panelRows()[0]).toContain('words · running'), TMUX);
    writeFileSync(narrowGate, '');
    await untilPasses(() => expect(panelRows().join('\n')).toContain('two: tai supervises'), TMUX);
    // The block written zoomed reads exactly as the one written at the panel's width.
    const block = (tag: string): string[] => {
      const rows = panelRows();
      const start = rows.findIndex((r) => r.startsWith(`${tag}: `));
      const end = rows.findIndex((r, i) => i > start && (r === '' || r.startsWith('two: ')));
      return rows.slice(start, end < 0 ? undefined : end);
    };
    await untilPasses(() => {
      const two = block('two');
      expect(two.length).toBeGreaterThan(2);
      expect(block('one')).toEqual(two.map((r) => r.replace(/^two: /, 'one: ')));
    }, TMUX);
    for (const row of block('one')) expect(row).toMatch(/^[\w:]+( [\w]+)*$/);
    expect(block('one').join(' ')).toBe(paragraph('one'));
    keys(PREFIX, 'n'); // the focus back on the main pane
    await endTai();
  }, 60_000);

  it("says on a lingering lane panel, in its header and in the agent list, that its lane was dropped and how to undrop it, instead of offering the merge", async () => {
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
    // The panel lingers with its footer's next steps.
    await untilPasses(() => expect(panelRows().join(' ')).toContain('merge: tai lane merge fix'), TMUX);
    type(`node ${CLI} lane drop fix --force; echo DROPPED=$?\r`);
    await untilPasses(() => expect(text()).toContain('DROPPED=0'), TMUX);
    await untilPasses(() => expect(panelRows()[0]).toMatch(/✓ fixer · done .*⎇ fix · dropped/), TMUX);
    // The line may wrap anywhere: read without spaces.
    await untilPasses(() => expect(panelRows().join('').replace(/\s/g, '')).toContain('thelanefixwasdropped:tailaneundropfixbringsitback'), TMUX);
    keys(PREFIX, 'w');
    await untilPasses(() => expect(text()).toMatch(/✓ #1 {2}fixer · done · \d+s · ⎇ fix · dropped/), TMUX);
    keys('q');
    await untilPasses(() => expect(screen()[0]).not.toMatch(/^ tai agents/), TMUX);
    await endTai();
  }, 60_000);

  it('shows in the agent list that a lane was dropped after its panel was closed, and the undrop line when the panel is reopened', async () => {
    const repo = join(dir, 'repo-closed');
    mkdirSync(repo);
    const git = (...args: string[]): string => execFileSync('git', args, { cwd: repo, env: ENV, encoding: 'utf8' });
    git('init', '-q', '-b', 'main');
    writeFileSync(join(repo, 'README.md'), 'hello\n');
    git('add', '.');
    git('commit', '-q', '-m', 'first');
    type(`cd ${repo}\r`);
    await startTai();
    type(`node ${CLI} spawn --lane mend --label mender -- sh -c 'echo new > n.txt'; echo SPAWNED=$?\r`);
    await untilPasses(() => expect(text()).toContain('SPAWNED=0'), TMUX);
    await untilPasses(() => expect(panelRows().join(' ')).toContain('merge: tai lane merge mend'), TMUX);
    // The finished panel closed by the user (prefix + n focuses it, prefix + x closes it).
    keys(PREFIX, 'n');
    keys(PREFIX, 'x');
    await untilPasses(() => expect(text()).not.toMatch(/✓ mender · done/), TMUX);
    keys(PREFIX, 'n'); // the focus back on the main pane
    type(`node ${CLI} lane drop mend --force; echo DROPPED=$?\r`);
    await untilPasses(() => expect(text()).toContain('DROPPED=0'), TMUX);
    keys(PREFIX, 'w');
    await untilPasses(() => expect(text()).toMatch(/✓ #1 {2}mender · done · \d+s · ⎇ mend · dropped/), TMUX);
    keys('Enter');
    await untilPasses(() => expect(screen().join('').replace(/\s/g, '')).toContain('thelanemendwasdropped:tailaneundropmendbringsitback'), TMUX);
    keys(PREFIX, 'z'); // unzoomed, the focus goes back to the main pane
    await endTai();
  }, 60_000);
});
