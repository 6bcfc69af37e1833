/**
 * The built `tai` in a real tmux session (a private server, always killed):
 * an agent started from the mention line runs where the main shell is now,
 * after its `cd`, not where the cockpit started, as `tai spawn @name` typed
 * in that shell would. Waits on conditions read with capture-pane.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { untilPasses, type Pace } from '../helpers/until.js';
import { endCockpits } from '../helpers/cockpit-servers.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(ROOT, 'dist/src/cli.js');
const hasTmux = spawnSync('tmux', ['-V']).status === 0;
const server = `tai-cwd-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
const dir = realpathSync(mkdtempSync(join(tmpdir(), 'tai-cwd-')));

const tmux = (...args: string[]): string => execFileSync('tmux', ['-L', server, '-f', '/dev/null', ...args], { encoding: 'utf8' });
const screen = (): string[] => tmux('capture-pane', '-p', '-t', 'cwd').split('\n').slice(0, 40);
const keys = (...k: string[]): void => void tmux('send-keys', '-t', 'cwd', ...k);
const TMUX: Pace = { timeout: 20_000, interval: 100 };

describe.skipIf(!hasTmux)('the mention line in tmux', () => {
  beforeAll(() => {
    mkdirSync(join(dir, 'run'), { mode: 0o700 });
    mkdirSync(join(dir, 'config', 'tai'), { recursive: true });
    mkdirSync(join(dir, 'elsewhere'));
    writeFileSync(join(dir, 'config', 'tai', 'agents.json'), JSON.stringify({ agents: { where: { kind: 'command', command: ['sh', '-c', 'echo "ran in $(pwd)"; sleep 30'] } } }));
    tmux(
      'new-session', '-d', '-s', 'cwd', '-x', '120', '-y', '40', '-c', dir,
      '-e', 'NODE_ENV=production',
      '-e', 'NO_COLOR=',
      '-e', 'TERM=xterm-256color',
      '-e', `XDG_STATE_HOME=${join(dir, 'state')}`,
      '-e', `XDG_RUNTIME_DIR=${join(dir, 'run')}`,
      '-e', `XDG_CONFIG_HOME=${join(dir, 'config')}`,
      'bash --norc --noprofile',
    );
    tmux('set-option', '-t', 'cwd', 'status', 'off');
  }, 60_000);

  afterAll(async () => {
    spawnSync('tmux', ['-L', server, 'kill-server']);
    await endCockpits({ XDG_RUNTIME_DIR: join(dir, 'run') });
    rmSync(dir, { recursive: true, force: true });
  });

  it("starts @name in the main shell's current directory, after its cd", async () => {
    keys(`node ${CLI} -- bash --norc --noprofile`, 'Enter');
    await untilPasses(() => expect(tmux('display-message', '-p', '-t', 'cwd', '#{alternate_on}').trim()).toBe('1'), TMUX);
    keys('-l', 'PS1="inner$ "; cd elsewhere; echo moved-$((6*7))');
    keys('Enter');
    await untilPasses(() => expect(screen().some((r) => r.startsWith('moved-42'))).toBe(true), TMUX);
    keys('C-]', '@');
    keys('-l', 'where tell me');
    keys('Enter');
    await untilPasses(() => expect(screen().join('\n')).toContain(`ran in ${join(dir, 'elsewhere')}`), TMUX);
    keys('exit', 'Enter');
  }, 60_000);
});
