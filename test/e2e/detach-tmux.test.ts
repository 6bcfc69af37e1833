/**
 * Detach and attach as a person does it, in real tmux sessions (a private
 * tmux server, always killed): the cockpit outlives the terminal that showed
 * it, `tai ls` lists it, `tai attach` shows it elsewhere with its agent
 * still ticking, prefix + d detaches, `exit` ends it; and a server killed
 * with SIGKILL leaves its client's terminal restored. Each with the native
 * client (src/native/client.c) and with the node one (TAI_NATIVE_CLIENT=0).
 * Waits on conditions read with capture-pane, never on time.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { untilPasses, type Pace } from '../helpers/until.js';
import { endCockpits } from '../helpers/cockpit-servers.js';
import { testEnv } from '../helpers/test-env.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(ROOT, 'dist/src/cli.js');
const hasTmux = spawnSync('tmux', ['-V']).status === 0;
const server = `tai-detach-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
const dir = mkdtempSync(join(tmpdir(), 'tai-detach-'));
const env = { XDG_STATE_HOME: join(dir, 'state'), XDG_RUNTIME_DIR: join(dir, 'run') };
const TMUX: Pace = { timeout: 20_000, interval: 100 };

const tmux = (...args: string[]): string => execFileSync('tmux', ['-L', server, '-f', '/dev/null', ...args], { encoding: 'utf8', env: testEnv() });
const screen = (session: string): string[] => tmux('capture-pane', '-p', '-t', session).split('\n');
const keys = (session: string, ...k: string[]): void => void tmux('send-keys', '-t', session, ...k);
const alternate = (session: string): string => tmux('display-message', '-p', '-t', session, '#{alternate_on}').trim();
const tai = (...args: string[]): string => execFileSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: testEnv(env) });
let client = '';
const session = (name: string): void => {
  const all = { ...env, TAI_NATIVE_CLIENT: client };
  tmux('new-session', '-d', '-s', name, '-x', '120', '-y', '30', ...Object.entries(all).flatMap(([k, v]) => ['-e', `${k}=${v}`]), '-e', 'NODE_ENV=production', 'bash --norc --noprofile');
  tmux('set-option', '-t', name, 'status', 'off');
};
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
    if (!existsSync(CLI)) execFileSync('npx', ['tsc', '-p', '.'], { cwd: ROOT, stdio: 'ignore' });
    execFileSync(process.execPath, [join(ROOT, 'src/native/build.mjs')], { cwd: ROOT, stdio: 'ignore' });
    mkdirSync(env.XDG_RUNTIME_DIR, { mode: 0o700, recursive: true });
    client = setting;
  }, 120_000);

  afterAll(async () => {
    spawnSync('tmux', ['-L', server, 'kill-server'], { env: testEnv() });
    await endCockpits({ XDG_RUNTIME_DIR: env.XDG_RUNTIME_DIR }); // servers outlive their terminals: end the ones this file started
  });

  it('keeps the cockpit and its agent when the terminal is closed, shows it again with tai attach, detaches with prefix + d and ends with exit', async () => {
    session('first');
    keys('first', `node ${CLI} -s night -- bash --norc --noprofile; echo TAI-EXIT=$?`, 'Enter');
    await untilPasses(() => expect(alternate('first')).toBe('1'), TMUX);
    await untilPasses(() => expect(screen('first').at(-2)).toMatch(/^ tai night │/), TMUX);
    keys('first', '-l', `node ${CLI} spawn --detach --label ticker -- sh -c 'i=0; while :; do i=$((i+1)); echo tick $i; sleep 0.2; done'`);
    keys('first', 'Enter');
    await untilPasses(() => expect(lastTick(screen('first'))).toBeGreaterThan(1), TMUX);

    // The terminal that showed it goes away: the cockpit and its agent do not.
    tmux('kill-session', '-t', 'first');
    const listed = tai('ls');
    expect(listed).toMatch(/^NAME +PID +PROGRAM +DIRECTORY +AGENTS +CLIENTS +AGE$/m);
    expect(listed).toMatch(/^night +\d+ +bash --norc --noprofile +\S+ +1 running, 0 ask you, 0 finished +0 +\d+s$/m);

    session('second');
    keys('second', `node ${CLI} attach; echo TAI-EXIT=$?`, 'Enter');
    await untilPasses(() => expect(screen('second').some((r) => r.includes('● ticker · running'))).toBe(true), TMUX);
    const seen = lastTick(screen('second'));
    await untilPasses(() => expect(lastTick(screen('second'))).toBeGreaterThan(seen), TMUX); // still ticking
    expect(JSON.parse(tai('ls', '--json'))[0].clients).toBe(1);
    // The server writes to this terminal and reads it itself (docs/protocol.md, "The terminal straight"), unless
    // CI's second run switched Node's internals off (TAI_INTERNALS=0): then the client does both, with frames.
    const pid = (JSON.parse(tai('ls', '--json')) as { pid: number }[])[0]?.pid ?? 0;
    const paneTty = tmux('display-message', '-p', '-t', 'second', '#{pane_tty}').trim();
    expect(openOn(pid, paneTty)).toBe(process.env.TAI_INTERNALS === '0' ? 0 : 2);

    // Prefix + d: the terminal is given back, with how to come back; the agent goes on.
    keys('second', 'C-]', 'd');
    await untilPasses(() => expect(screen('second').join('\n')).toContain('TAI-EXIT=0'), TMUX);
    expect(alternate('second')).toBe('0');
    expect(screen('second').join(' ')).toContain('tai: detached from cockpit night; tai attach night comes back');
    expect(tai('ls')).toMatch(/^night .* 1 running/m);
    expect(openOn(pid, paneTty)).toBe(0);

    keys('second', 'clear', 'Enter');
    keys('second', `node ${CLI} attach night; echo TAI-EXIT=$?`, 'Enter');
    await untilPasses(() => expect(screen('second').some((r) => r.includes('● ticker · running'))).toBe(true), TMUX);
    keys('second', 'exit 4', 'Enter');
    await untilPasses(() => expect(screen('second').join('\n')).toContain('TAI-EXIT=4'), TMUX);
    expect(alternate('second')).toBe('0');
    expect(tai('ls')).toContain('no cockpit is running');
  }, 120_000);

  it('leaves the terminal restored when the server is killed with SIGKILL', async () => {
    session('third');
    keys('third', `node ${CLI} -s doomed -- bash --norc --noprofile; echo TAI-EXIT=$?`, 'Enter');
    await untilPasses(() => expect(screen('third').at(-2)).toMatch(/^ tai doomed │/), TMUX);
    expect(alternate('third')).toBe('1');
    const [card] = JSON.parse(tai('ls', '--json')) as { pid: number }[];
    process.kill(card?.pid ?? 0, 'SIGKILL');
    await untilPasses(() => expect(screen('third').join('\n')).toContain('TAI-EXIT=1'), TMUX);
    expect(alternate('third')).toBe('0');
    expect(screen('third').join(' ').replace(/\s+/g, ' ')).toContain('tai: cockpit doomed ended without a word (its server was killed?)');
    expect(tai('ls')).toContain('no cockpit is running'); // its card is swept
  }, 60_000);
});
