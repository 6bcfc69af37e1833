/**
 * Agent panels as a person meets them, in a real tmux (a private server with
 * an environment of its own, always killed): the built `tai` around bash,
 * keys sent with send-keys, the screen read with capture-pane. The agents
 * wait on files the test writes, never on time.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tmuxEnv } from '../helpers/test-env.js';
import { TAI_CLI as CLI } from '../helpers/tai-cli.js';
import { buildCli, hasTmux, tmuxFolder, TmuxServer, type TmuxSession } from '../helpers/tmux-session.js';

const dir = tmuxFolder('tai-panels-');
/** The tmux server's whole environment (test/helpers/test-env.ts), with git's identity for the lanes. */
const ENV = tmuxEnv(dir, {
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
});
const server = new TmuxServer('tai-panels', ENV);
let term: TmuxSession;

const screen = (): string[] => term.screen();
const text = (): string => term.text();
/** The agent column (right of the separator at 120x40: from column 67), right-trimmed. */
const panelRows = (): string[] => term.columns(67).split('\n');
const keys = (...k: string[]): void => term.keys(...k);
const type = (s: string): void => term.type(s);
const PREFIX = 'C-]';

/** A paragraph of words of many lengths, far wider than a panel, narrower than the zoomed window twice over. */
function paragraph(tag: string): string {
  const words = ['tai', 'supervises', 'agents', 'in', 'panels', 'beside', 'the', 'shell', 'and', 'wraps', 'their', 'words', 'at', 'the', 'width'];
  return `${tag}: ${[...words, ...words.slice().reverse()].join(' ')}`;
}

describe.skipIf(!hasTmux)('agent panels in tmux', () => {
  beforeAll(() => {
    buildCli();
    term = server.start('p');
  }, 120_000);

  beforeEach(() => {
    term.resize(120, 40);
  });

  afterAll(() => server.end(dir));

  it('wraps by word, after the unzoom, the text an agent wrote while its panel was zoomed, exactly as text written at the narrow width', async () => {
    await term.startTai();
    const zoomedGate = join(dir, 'zoomed');
    const narrowGate = join(dir, 'narrow');
    const script = [
      `while [ ! -e ${zoomedGate} ]; do sleep 0.05; done; echo '${paragraph('one')}'`,
      `while [ ! -e ${narrowGate} ]; do sleep 0.05; done; echo '${paragraph('two')}'`,
      'sleep 600',
    ].join('; ');
    type(`node ${CLI} spawn --detach --label words -- sh -c "${script}"\r`);
    await term.until(() => expect(panelRows()[0]).toContain('words · running'));
    keys(PREFIX, 'n');
    keys(PREFIX, 'z');
    await term.until(() => expect(screen()[0]).toMatch(/^ ● words · running/));
    writeFileSync(zoomedGate, '');
    // Zoomed, the paragraph takes two lines of the window.
    await term.until(() => expect(text()).toContain('one: tai supervises agents'));
    keys(PREFIX, 'z');
    await term.until(() => expect(panelRows()[0]).toContain('words · running'));
    writeFileSync(narrowGate, '');
    await term.until(() => expect(panelRows().join('\n')).toContain('two: tai supervises'));
    // The block written zoomed reads exactly as the one written at the panel's width.
    const block = (tag: string): string[] => {
      const rows = panelRows();
      const start = rows.findIndex((r) => r.startsWith(`${tag}: `));
      const end = rows.findIndex((r, i) => i > start && (r === '' || r.startsWith('two: ')));
      return rows.slice(start, end < 0 ? undefined : end);
    };
    await term.until(() => {
      const two = block('two');
      expect(two.length).toBeGreaterThan(2);
      expect(block('one')).toEqual(two.map((r) => r.replace(/^two: /, 'one: ')));
    });
    for (const row of block('one')) expect(row).toMatch(/^[\w:]+( [\w]+)*$/);
    expect(block('one').join(' ')).toBe(paragraph('one'));
    keys(PREFIX, 'n'); // the focus back on the main pane
    await term.endTai();
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
    await term.startTai();
    type(`node ${CLI} spawn --lane fix --label fixer -- sh -c 'echo new > n.txt'; echo SPAWNED=$?\r`);
    await term.until(() => expect(text()).toContain('SPAWNED=0'));
    // The panel lingers with its footer's next steps.
    await term.until(() => expect(panelRows().join(' ')).toContain('merge: tai lane merge fix'));
    type(`node ${CLI} lane drop fix --force; echo DROPPED=$?\r`);
    await term.until(() => expect(text()).toContain('DROPPED=0'));
    await term.until(() => expect(panelRows()[0]).toMatch(/✓ fixer · done .*⎇ fix · dropped/));
    // The line may wrap anywhere: read without spaces.
    await term.until(() => expect(panelRows().join('').replace(/\s/g, '')).toContain('thelanefixwasdropped:tailaneundropfixbringsitback'));
    keys(PREFIX, 'w');
    await term.until(() => expect(text()).toMatch(/✓ #1 {2}fixer · done · \d+s · ⎇ fix · dropped/));
    keys('q');
    await term.until(() => expect(screen()[0]).not.toMatch(/^ tai agents/));
    await term.endTai();
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
    await term.startTai();
    type(`node ${CLI} spawn --lane mend --label mender -- sh -c 'echo new > n.txt'; echo SPAWNED=$?\r`);
    await term.until(() => expect(text()).toContain('SPAWNED=0'));
    await term.until(() => expect(panelRows().join(' ')).toContain('merge: tai lane merge mend'));
    // The finished panel closed by the user (prefix + n focuses it, prefix + x closes it).
    keys(PREFIX, 'n');
    keys(PREFIX, 'x');
    await term.until(() => expect(text()).not.toMatch(/✓ mender · done/));
    keys(PREFIX, 'n'); // the focus back on the main pane
    type(`node ${CLI} lane drop mend --force; echo DROPPED=$?\r`);
    await term.until(() => expect(text()).toContain('DROPPED=0'));
    keys(PREFIX, 'w');
    await term.until(() => expect(text()).toMatch(/✓ #1 {2}mender · done · \d+s · ⎇ mend · dropped/));
    keys('Enter');
    await term.until(() => expect(screen().join('').replace(/\s/g, '')).toContain('thelanemendwasdropped:tailaneundropmendbringsitback'));
    keys(PREFIX, 'z'); // unzoomed, the focus goes back to the main pane
    await term.endTai();
  }, 60_000);
});
