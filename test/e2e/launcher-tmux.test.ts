/**
 * tai's launcher (src/bin/tai) as a person runs it, in real tmux sessions (a
 * private tmux server, always killed): the native client runs in tai's place
 * with no node process waiting beside it, prefix + d, a SIGTERM and the main
 * program's exit each end it with tai's farewell and exit code, a SIGKILL of
 * the client leaves the server to restore the screen, the cockpit's
 * programs never see the launcher's pipe, and every other command, or the
 * node client, is node at once. Waits on conditions read with capture-pane.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { untilPasses, type Pace } from '../helpers/until.js';
import { endCockpits } from '../helpers/cockpit-servers.js';
import { testEnv } from '../helpers/test-env.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(ROOT, 'dist/src/cli.js');
const dir = mkdtempSync(join(tmpdir(), 'tai-launcher-'));
// Run as npm installs it: through a symlink in a .bin folder.
const TAI = join(dir, '.bin', 'tai');
const hasTmux = spawnSync('tmux', ['-V']).status === 0;
const server = `tai-launcher-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
const env = { XDG_STATE_HOME: join(dir, 'state'), XDG_RUNTIME_DIR: join(dir, 'run') };
const TMUX: Pace = { timeout: 20_000, interval: 100 };

const tmux = (...args: string[]): string => execFileSync('tmux', ['-L', server, '-f', '/dev/null', ...args], { encoding: 'utf8', env: testEnv() });
const screen = (session: string): string => tmux('capture-pane', '-p', '-J', '-t', session);
const keys = (session: string, ...k: string[]): void => void tmux('send-keys', '-t', session, ...k);
const alternate = (session: string): string => tmux('display-message', '-p', '-t', session, '#{alternate_on}').trim();
const session = (name: string, extra: Record<string, string> = {}): void => {
  const all = { ...env, ...extra };
  tmux('new-session', '-d', '-s', name, '-x', '120', '-y', '30', ...Object.entries(all).flatMap(([k, v]) => ['-e', `${k}=${v}`]), '-e', 'NODE_ENV=production', 'bash --norc --noprofile');
  tmux('set-option', '-t', name, 'status', 'off');
};
/** The command lines of the children of the shell in `session`'s pane. */
const children = (session: string): string[] => {
  const shell = tmux('display-message', '-p', '-t', session, '#{pane_pid}').trim();
  const pids = readFileSync(`/proc/${shell}/task/${shell}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  return pids.map((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim());
};
const childPid = (session: string): number => {
  const shell = tmux('display-message', '-p', '-t', session, '#{pane_pid}').trim();
  return Number(readFileSync(`/proc/${shell}/task/${shell}/children`, 'utf8').trim().split(/\s+/)[0]);
};

describe.skipIf(!hasTmux)('the launcher src/bin/tai in tmux', () => {
  beforeAll(() => {
    if (!existsSync(CLI)) execFileSync('npx', ['tsc', '-p', '.'], { cwd: ROOT, stdio: 'ignore' });
    execFileSync(process.execPath, [join(ROOT, 'src/native/build.mjs')], { cwd: ROOT, stdio: 'ignore' });
    mkdirSync(env.XDG_RUNTIME_DIR, { mode: 0o700, recursive: true });
    mkdirSync(join(dir, '.bin'));
    symlinkSync(join(ROOT, 'src/bin/tai'), TAI);
  }, 120_000);

  afterAll(async () => {
    spawnSync('tmux', ['-L', server, 'kill-server'], { env: testEnv() });
    await endCockpits({ XDG_RUNTIME_DIR: env.XDG_RUNTIME_DIR });
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs the native client in place of node, and prefix + d, SIGTERM and exit end it with the farewell and the code', async () => {
    session('one');
    keys('one', `${TAI} -s lean -- bash --norc --noprofile; echo TAI-EXIT=$?`, 'Enter');
    await untilPasses(() => expect(screen('one')).toMatch(/^ tai lean │/m), TMUX);
    // The shell's one child is the native client itself: no node waits on it.
    const [only, ...more] = children('one');
    expect(more).toEqual([]);
    expect(only).toMatch(/^\S+\/tai-client --link /);
    keys('one', 'C-]', 'd');
    await untilPasses(() => expect(screen('one')).toContain('TAI-EXIT=0'), TMUX);
    expect(alternate('one')).toBe('0');
    expect(screen('one')).toContain('tai: detached from cockpit lean; tai attach lean comes back');

    keys('one', 'clear', 'Enter');
    keys('one', `${TAI} attach lean; echo TAI-EXIT=$?`, 'Enter');
    await untilPasses(() => expect(alternate('one')).toBe('1'), TMUX);
    await untilPasses(() => expect(children('one')[0]).toMatch(/tai-client --link /), TMUX);
    process.kill(childPid('one'), 'SIGTERM');
    await untilPasses(() => expect(screen('one')).toContain('TAI-EXIT=0'), TMUX);
    expect(screen('one')).toContain('tai: detached from cockpit lean (SIGTERM); tai attach lean comes back');
    // The report the client left for the farewell is gone with it.
    expect(readdirSync(join(env.XDG_RUNTIME_DIR, 'tai')).filter((f) => f.startsWith('tai-farewell-'))).toEqual([]);

    keys('one', 'clear', 'Enter');
    keys('one', `${TAI} attach lean; echo TAI-EXIT=$?`, 'Enter');
    await untilPasses(() => expect(screen('one')).toMatch(/^ tai lean │/m), TMUX);
    // The cockpit's programs never see the launcher's variable nor its pipe on fd 3.
    keys('one', 'echo "EXEC=[$TAI_EXEC_FD]"; readlink /proc/$$/fd/3 || echo FD3-CLOSED', 'Enter');
    await untilPasses(() => expect(screen('one')).toMatch(/^EXEC=\[\]\n(.*\n)?FD3-CLOSED$/m), TMUX);
    keys('one', 'exit 4', 'Enter');
    await untilPasses(() => expect(screen('one')).toContain('TAI-EXIT=4'), TMUX);
    expect(alternate('one')).toBe('0');
  }, 120_000);

  // Only a server that took the client's terminal can leave its modes; with TAI_INTERNALS=0 the client keeps its terminal (as tmux's does).
  it.skipIf(process.env.TAI_INTERNALS === '0')("leaves the cockpit's screen and mouse modes when the native client is killed with SIGKILL, and the cockpit goes on for the next attach", async () => {
    session('three');
    keys('three', `${TAI} -s hard -- bash --norc --noprofile; echo TAI-EXIT=$?`, 'Enter');
    await untilPasses(() => expect(screen('three')).toMatch(/^ tai hard │/m), TMUX);
    const modes = (): string => tmux('display-message', '-p', '-t', 'three', '#{alternate_on} #{mouse_any_flag} #{mouse_sgr_flag}').trim();
    expect(modes()).toBe('1 1 1');
    const client = childPid('three');
    process.kill(client, 'SIGKILL'); // no restore of its own, no goodbye on the link
    await untilPasses(() => expect(existsSync(`/proc/${client}`)).toBe(false), TMUX);
    // The server held the terminal: it leaves the screen and the modes (the shell restores the cooked mode).
    // What the shell printed before that (TAI-EXIT=137, its prompt) went to the alternate screen, left with it.
    await untilPasses(() => expect(modes()).toBe('0 0 0'), TMUX);
    keys('three', 'echo ALIVE-$((6*7))', 'Enter');
    await untilPasses(() => expect(screen('three')).toMatch(/^ALIVE-42$/m), TMUX);

    keys('three', `${TAI} attach hard; echo TAI-EXIT=$?`, 'Enter');
    await untilPasses(() => expect(screen('three')).toMatch(/^ tai hard │/m), TMUX);
    keys('three', 'exit 5', 'Enter');
    await untilPasses(() => expect(screen('three')).toContain('TAI-EXIT=5'), TMUX);
    expect(modes()).toBe('0 0 0');
  }, 120_000);

  it('runs the node client, and every command but a cockpit or an attach, as node itself', async () => {
    session('two', { TAI_NATIVE_CLIENT: '0' });
    keys('two', `${TAI} -s plain -- bash --norc --noprofile; echo TAI-EXIT=$?`, 'Enter');
    await untilPasses(() => expect(screen('two')).toMatch(/^ tai plain │/m), TMUX);
    const [only, ...more] = children('two');
    expect(more).toEqual([]);
    expect(only).toMatch(/^node \S+\/dist\/src\/cli\.js -s plain /);
    keys('two', 'exit 3', 'Enter');
    await untilPasses(() => expect(screen('two')).toContain('TAI-EXIT=3'), TMUX);

    const ls = spawnSync(TAI, ['ls'], { encoding: 'utf8', env: testEnv(env) });
    expect(ls.stdout).toContain('no cockpit is running');
    expect(ls.status).toBe(0);
    const version = spawnSync(TAI, ['--version'], { encoding: 'utf8', env: testEnv(env) });
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  }, 120_000);
});
