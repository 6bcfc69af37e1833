/**
 * Detach and attach as a person does it, in real tmux sessions (a private
 * tmux server, always killed): the cockpit outlives the terminal that showed
 * it, `tai ls` lists it, `tai attach` shows it elsewhere with its agent
 * still ticking, prefix + d detaches, `exit` ends it; and a server killed
 * with SIGKILL leaves its client's terminal restored. Each with the native
 * client (src/native/client.c) and with the node one (TAI_NATIVE_CLIENT=0).
 * Waits on conditions read with capture-pane, never on time.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readlinkSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEnv } from '../helpers/test-env.js';
import { TAI_CLI as CLI } from '../helpers/tai-cli.js';
import { buildCli, hasTmux, tmuxFolder, TmuxServer, type TmuxSession, untilTmux } from '../helpers/tmux-session.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dir = tmuxFolder('tai-detach-');
const env = { XDG_STATE_HOME: join(dir, 'state'), XDG_RUNTIME_DIR: join(dir, 'run') };
/** The tmux server's whole environment (test/helpers/test-env.ts): nothing of the caller's. */
const server = new TmuxServer('tai-detach', testEnv());

const tai = (...args: string[]): string => execFileSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: testEnv(env) });
let client = '';
/** A 120x30 terminal with the client of this round (TAI_NATIVE_CLIENT). */
const session = (name: string): TmuxSession => server.start(name, { cols: 120, rows: 30, env: { ...env, TAI_NATIVE_CLIENT: client, NODE_ENV: 'production' } });
/** The fds of process `pid` open on `path`. */
const openOn = (pid: number, path: string): number =>
  readdirSync(`/proc/${pid}/fd`).filter((fd) => {
    try {
      return readlinkSync(`/proc/${pid}/fd/${fd}`) === path;
    } catch {
      return false;
    }
  }).length;
/** The highest tick the panel shows. */
const lastTick = (rows: string[]): number => Math.max(0, ...rows.flatMap((r) => [...r.matchAll(/tick (\d+)/g)].map((m) => Number(m[1]))));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

// '' is the default (the built native client); 0 forces the node one.
describe.skipIf(!hasTmux).each([
  ['native', ''],
  ['node', '0'],
])('detach and attach in tmux with the %s client', (_kind, setting) => {
  beforeAll(() => {
    buildCli();
    execFileSync(process.execPath, [join(ROOT, 'src/native/build.mjs')], { cwd: ROOT, stdio: 'ignore' });
    client = setting;
  }, 120_000);

  afterAll(() => server.end(dir, { keep: true }));

  it('keeps the cockpit and its agent when the terminal is closed, shows it again with tai attach, detaches with prefix + d and ends with exit', async () => {
    const first = session('first');
    first.keys(`node ${CLI} -s night -- bash --norc --noprofile; echo TAI-EXIT=$?`, 'Enter');
    await untilTmux(() => expect(first.alternate()).toBe(true));
    await untilTmux(() => expect(first.screen().at(-1)).toMatch(/^ tai night │/));
    first.keys('-l', `node ${CLI} spawn --detach --label ticker -- sh -c 'i=0; while :; do i=$((i+1)); echo tick $i; sleep 0.2; done'`);
    first.keys('Enter');
    await untilTmux(() => expect(lastTick(first.screen())).toBeGreaterThan(1));

    // The terminal that showed it goes away: the cockpit and its agent do not.
    server.tmux('kill-session', '-t', 'first');
    const listed = tai('ls');
    expect(listed).toMatch(/^NAME +PID +PROGRAM +DIRECTORY +AGENTS +CLIENTS +AGE$/m);
    expect(listed).toMatch(/^night +\d+ +bash --norc --noprofile +\S+ +1 running, 0 ask you, 0 finished +0 +\d+s$/m);

    const second = session('second');
    second.keys(`node ${CLI} attach; echo TAI-EXIT=$?`, 'Enter');
    await untilTmux(() => expect(second.screen().some((r) => r.includes('● ticker · running'))).toBe(true));
    const seen = lastTick(second.screen());
    await untilTmux(() => expect(lastTick(second.screen())).toBeGreaterThan(seen)); // still ticking
    expect(JSON.parse(tai('ls', '--json'))[0].clients).toBe(1);
    // The server writes to this terminal and reads it itself (docs/protocol.md, "The terminal straight"), unless
    // CI's second run switched Node's internals off (TAI_INTERNALS=0): then the client does both, with frames.
    const pid = (JSON.parse(tai('ls', '--json')) as { pid: number }[])[0]?.pid ?? 0;
    const paneTty = second.display('#{pane_tty}');
    expect(openOn(pid, paneTty)).toBe(process.env.TAI_INTERNALS === '0' ? 0 : 2);

    // Prefix + d: the terminal is given back, with how to come back; the agent goes on.
    second.keys('C-]', 'd');
    await untilTmux(() => expect(second.text()).toContain('TAI-EXIT=0'));
    expect(second.alternate()).toBe(false);
    expect(second.screen().join(' ')).toContain('tai: detached from cockpit night; tai attach night comes back');
    expect(tai('ls')).toMatch(/^night .* 1 running/m);
    expect(openOn(pid, paneTty)).toBe(0);

    second.keys('clear', 'Enter');
    second.keys(`node ${CLI} attach night; echo TAI-EXIT=$?`, 'Enter');
    await untilTmux(() => expect(second.screen().some((r) => r.includes('● ticker · running'))).toBe(true));
    second.keys('exit 4', 'Enter');
    await untilTmux(() => expect(second.text()).toContain('TAI-EXIT=4'));
    expect(second.alternate()).toBe(false);
    expect(tai('ls')).toContain('no cockpit is running');
  }, 120_000);

  it('leaves the terminal restored when the server is killed with SIGKILL', async () => {
    const third = session('third');
    third.keys(`node ${CLI} -s doomed -- bash --norc --noprofile; echo TAI-EXIT=$?`, 'Enter');
    await untilTmux(() => expect(third.screen().at(-1)).toMatch(/^ tai doomed │/));
    expect(third.alternate()).toBe(true);
    const [card] = JSON.parse(tai('ls', '--json')) as { pid: number }[];
    process.kill(card?.pid ?? 0, 'SIGKILL');
    await untilTmux(() => expect(third.text()).toContain('TAI-EXIT=1'));
    expect(third.alternate()).toBe(false);
    expect(third.screen().join(' ').replace(/\s+/g, ' ')).toContain('tai: cockpit doomed ended without a word (its server was killed?)');
    expect(tai('ls')).toContain('no cockpit is running'); // its card is swept
  }, 60_000);
});
