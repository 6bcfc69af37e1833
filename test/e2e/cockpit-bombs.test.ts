/**
 * A display must never stop supervision: the whole cockpit in a real tmux
 * session, and 15 bytes that used to freeze it for 50 minutes (CSI
 * 2147483647 S, and the other counts xterm.js loops on) printed in the main
 * pane and sent as a feed pane's raw data. Right after, the socket answers,
 * a key echoes, and an agent's wall clock still fires.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { untilPasses } from '../helpers/until.js';
import { endCockpits } from '../helpers/cockpit-servers.js';
import { testEnv } from '../helpers/test-env.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(ROOT, 'dist/src/cli.js');
const hasTmux = spawnSync('tmux', ['-V']).status === 0;
const server = `tai-e2e-bomb-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
const dir = mkdtempSync(join(tmpdir(), 'tai-e2e-bomb-'));

const tmux = (...args: string[]): string => execFileSync('tmux', ['-L', server, '-f', '/dev/null', ...args], { encoding: 'utf8', env: testEnv() });
const screen = (): string[] => tmux('capture-pane', '-p', '-t', 'e2e').split('\n').slice(0, 40);
const left = (): string => screen().map((r) => [...r].slice(0, 66).join('').trimEnd()).join('\n');
const right = (): string => screen().map((r) => [...r].slice(67).join('').trimEnd()).join('\n');
const keys = (...k: string[]): void => void tmux('send-keys', '-t', 'e2e', ...k);
const until = (check: () => void, timeout = 20_000): Promise<void> => untilPasses(check, { timeout, interval: 50 });

/** One request on the control socket; resolves with the reply line, rejects after `ms`. */
function ask(socket: string, line: string, ms: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const c = connect(socket);
    let got = '';
    const timer = setTimeout(() => {
      c.destroy();
      reject(new Error(`no reply in ${ms} ms`));
    }, ms);
    c.on('data', (d) => {
      got += d.toString('utf8');
      if (got.includes('\n')) {
        clearTimeout(timer);
        c.end();
        resolve(got.slice(0, got.indexOf('\n')));
      }
    });
    c.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    c.write(line + '\n');
  });
}

const BOMBS = ['S', 'T', 'L', 'M', '@', 'P', 'X', 'E', 'F', 'd', 'G'].map((f) => `\\033[2147483647${f}`).join('') + 'x\\033[2147483647b';

describe.skipIf(!hasTmux)('the cockpit under hostile escape sequences', () => {
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

  it('keeps answering the socket, echoing keys and timing agents out after bombs in the main pane and a feed pane', async () => {
    keys(`PS1='$ '; tai() { node ${CLI} "$@"; }; clear`, 'Enter');
    keys('echo "SOCK=$TAI_PLEXER_SOCKET="', 'Enter');
    await until(() => expect(left()).toMatch(/SOCK=\/\S+=/));
    const socket = /SOCK=(\/\S+)=/.exec(left().replace(/\n/g, ''))![1]!;
    keys(`tai vpane open --label ext --header ' ● ext · running'`, 'Enter');
    await until(() => expect(right()).toContain(' ● ext · running'));
    // The shortest wall clock an agent may have (FORK_TIMEOUT_MIN): 30 s.
    keys(`tai spawn --detach --timeout 30 --label clock -- sleep 300`, 'Enter');
    await until(() => expect(right()).toMatch(/ ● clock · running/));
    const spawned = Date.now();

    keys(`clear; tai vpane write 1 --raw "$(printf '${BOMBS}')"; printf '${BOMBS}'; echo; echo BOMBED`, 'Enter');
    await until(() => expect(left()).toContain('BOMBED'));
    // Within a second after: the socket answers a request, and a key echoes.
    const reply = await ask(socket, JSON.stringify({ cmd: 'status' }), 1_000);
    expect(JSON.parse(reply)).toMatchObject({ ok: true });
    keys('echo ALIVE-AFTER');
    await until(() => expect(left()).toContain('ALIVE-AFTER'), 1_000);
    keys('Enter');

    // The agent's wall clock fires on time (with the board's 1 s tick and the hard stop's grace to spare).
    await until(() => expect(right()).toMatch(/ ⏱ clock · timeout/), 45_000 - (Date.now() - spawned));
    keys('exit', 'Enter');
    await until(() => expect(spawnSync('tmux', ['-L', server, 'has-session', '-t', 'e2e'], { env: testEnv() }).status).not.toBe(0));
  }, 90_000);
});
