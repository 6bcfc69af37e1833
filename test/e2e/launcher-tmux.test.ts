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
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEnv } from '../helpers/test-env.js';
import { buildCli, hasTmux, tmuxFolder, TmuxServer, type TmuxSession, untilTmux } from '../helpers/tmux-session.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dir = tmuxFolder('tai-launcher-');
// Run as npm installs it: through a symlink in a .bin folder.
const TAI = join(dir, '.bin', 'tai');
const env = { XDG_STATE_HOME: join(dir, 'state'), XDG_RUNTIME_DIR: join(dir, 'run') };
/** The tmux server's whole environment (test/helpers/test-env.ts): nothing of the caller's. */
const server = new TmuxServer('tai-launcher', testEnv());

/** A 120x30 terminal with the test's state folders and `extra`. */
const session = (name: string, extra: Record<string, string> = {}): TmuxSession =>
  server.start(name, { cols: 120, rows: 30, env: { ...env, ...extra, NODE_ENV: 'production' } });
/** The command lines of the children of the shell in `session`'s pane. */
const children = (session: TmuxSession): string[] => {
  const shell = session.display('#{pane_pid}');
  const pids = readFileSync(`/proc/${shell}/task/${shell}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  return pids.map((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim());
};
const childPid = (session: TmuxSession): number => {
  const shell = session.display('#{pane_pid}');
  return Number(readFileSync(`/proc/${shell}/task/${shell}/children`, 'utf8').trim().split(/\s+/)[0]);
};

describe.skipIf(!hasTmux)('the launcher src/bin/tai in tmux', () => {
  beforeAll(() => {
    buildCli();
    execFileSync(process.execPath, [join(ROOT, 'src/native/build.mjs')], { cwd: ROOT, stdio: 'ignore' });
    mkdirSync(join(dir, '.bin'));
    symlinkSync(join(ROOT, 'src/bin/tai'), TAI);
  }, 120_000);

  afterAll(() => server.end(dir));

  it('runs the native client in place of node, and prefix + d, SIGTERM and exit end it with the farewell and the code', async () => {
    const one = session('one');
    one.keys(`${TAI} -s lean -- bash --norc --noprofile; echo TAI-EXIT=$?`, 'Enter');
    await untilTmux(() => expect(one.joined()).toMatch(/^ tai lean │/m));
    // The shell's one child is the native client itself: no node waits on it.
    const [only, ...more] = children(one);
    expect(more).toEqual([]);
    expect(only).toMatch(/^\S+\/tai-client --link /);
    one.keys('C-]', 'd');
    await untilTmux(() => expect(one.joined()).toContain('TAI-EXIT=0'));
    expect(one.alternate()).toBe(false);
    expect(one.joined()).toContain('tai: detached from cockpit lean; tai attach lean comes back');

    one.keys('clear', 'Enter');
    one.keys(`${TAI} attach lean; echo TAI-EXIT=$?`, 'Enter');
    await untilTmux(() => expect(one.alternate()).toBe(true));
    await untilTmux(() => expect(children(one)[0]).toMatch(/tai-client --link /));
    process.kill(childPid(one), 'SIGTERM');
    await untilTmux(() => expect(one.joined()).toContain('TAI-EXIT=0'));
    expect(one.joined()).toContain('tai: detached from cockpit lean (SIGTERM); tai attach lean comes back');
    // The report the client left for the farewell is gone with it.
    expect(readdirSync(join(env.XDG_RUNTIME_DIR, 'tai')).filter((f) => f.startsWith('tai-farewell-'))).toEqual([]);

    one.keys('clear', 'Enter');
    one.keys(`${TAI} attach lean; echo TAI-EXIT=$?`, 'Enter');
    await untilTmux(() => expect(one.joined()).toMatch(/^ tai lean │/m));
    // The cockpit's programs never see the launcher's variable nor its pipe on fd 3.
    one.keys('echo "EXEC=[$TAI_EXEC_FD]"; readlink /proc/$$/fd/3 || echo FD3-CLOSED', 'Enter');
    await untilTmux(() => expect(one.joined()).toMatch(/^EXEC=\[\]\n(.*\n)?FD3-CLOSED$/m));
    one.keys('exit 4', 'Enter');
    await untilTmux(() => expect(one.joined()).toContain('TAI-EXIT=4'));
    expect(one.alternate()).toBe(false);
  }, 120_000);

  // Only a server that took the client's terminal can leave its modes; with TAI_INTERNALS=0 the client keeps its terminal (as tmux's does).
  it.skipIf(process.env.TAI_INTERNALS === '0')("leaves the cockpit's screen and mouse modes when the native client is killed with SIGKILL, and the cockpit goes on for the next attach", async () => {
    const three = session('three');
    three.keys(`${TAI} -s hard -- bash --norc --noprofile; echo TAI-EXIT=$?`, 'Enter');
    await untilTmux(() => expect(three.joined()).toMatch(/^ tai hard │/m));
    const modes = (): string => three.display('#{alternate_on} #{mouse_any_flag} #{mouse_sgr_flag}');
    expect(modes()).toBe('1 1 1');
    const client = childPid(three);
    process.kill(client, 'SIGKILL'); // no restore of its own, no goodbye on the link
    await untilTmux(() => expect(existsSync(`/proc/${client}`)).toBe(false));
    // The server held the terminal: it leaves the screen and the modes (the shell restores the cooked mode).
    // What the shell printed before that (TAI-EXIT=137, its prompt) went to the alternate screen, left with it.
    await untilTmux(() => expect(modes()).toBe('0 0 0'));
    three.keys('echo ALIVE-$((6*7))', 'Enter');
    await untilTmux(() => expect(three.joined()).toMatch(/^ALIVE-42$/m));

    three.keys(`${TAI} attach hard; echo TAI-EXIT=$?`, 'Enter');
    await untilTmux(() => expect(three.joined()).toMatch(/^ tai hard │/m));
    three.keys('exit 5', 'Enter');
    await untilTmux(() => expect(three.joined()).toContain('TAI-EXIT=5'));
    expect(modes()).toBe('0 0 0');
  }, 120_000);

  it('runs the node client, and every command but a cockpit or an attach, as node itself', async () => {
    const two = session('two', { TAI_NATIVE_CLIENT: '0' });
    two.keys(`${TAI} -s plain -- bash --norc --noprofile; echo TAI-EXIT=$?`, 'Enter');
    await untilTmux(() => expect(two.joined()).toMatch(/^ tai plain │/m));
    const [only, ...more] = children(two);
    expect(more).toEqual([]);
    expect(only).toMatch(/^node \S+\/dist\/src\/cli\.js -s plain /);
    two.keys('exit 3', 'Enter');
    await untilTmux(() => expect(two.joined()).toContain('TAI-EXIT=3'));

    const ls = spawnSync(TAI, ['ls'], { encoding: 'utf8', env: testEnv(env) });
    expect(ls.stdout).toContain('no cockpit is running');
    expect(ls.status).toBe(0);
    const version = spawnSync(TAI, ['--version'], { encoding: 'utf8', env: testEnv(env) });
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  }, 120_000);
});
