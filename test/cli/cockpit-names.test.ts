/**
 * Cockpits by name, with the built CLI: two cockpits started as a user does
 * (each a client in a real pty and its server), `tai spawn -t NAME` and
 * `tai status -t NAME` reach the one named, no name with two running is a
 * refusal that names both, `tai -s NAME` refuses a name taken and a bad
 * one, `tai ls` lists them and `tai kill NAME` ends one, its client given
 * back its terminal with the code.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pty from 'node-pty';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTai, TAI_CLI } from '../helpers/tai-cli.js';
import { until } from '../helpers/until.js';
import { endCockpits } from '../helpers/cockpit-servers.js';
import { testEnv } from '../helpers/test-env.js';

const dir = mkdtempSync(join(tmpdir(), 'tai-names-'));
const env = { XDG_STATE_HOME: join(dir, 'state'), XDG_RUNTIME_DIR: join(dir, 'run'), XDG_CONFIG_HOME: join(dir, 'config'), TAI_SERVER: '' };

/** A client of a new cockpit in a real pty; its output and exit code. */
function cockpit(args: string[], more: Record<string, string> = {}) {
  const p = pty.spawn(process.execPath, [TAI_CLI, ...args], { cols: 120, rows: 30, env: testEnv({ ...env, ...more }) });
  const seen = { out: '', code: undefined as number | undefined };
  p.onData((d) => (seen.out += d));
  p.onExit((e) => (seen.code = e.exitCode));
  return seen;
}

describe('cockpits by name', () => {
  const clients: ReturnType<typeof cockpit>[] = [];
  beforeAll(async () => {
    mkdirSync(env.XDG_RUNTIME_DIR, { mode: 0o700 });
    clients.push(cockpit(['-s', 'alpha', '--', 'sleep', '300']), cockpit(['-s', 'beta', '--', 'sleep', '300']));
    // Each server says it is ready before its client attaches; both are listed once both clients are.
    await until(() => clients.every((c) => /tai (alpha|beta) │/.test(c.out)), { what: 'both status lines drawn', timeout: 20_000 });
  }, 30_000);

  afterAll(async () => {
    await endCockpits(env);
    rmSync(dir, { recursive: true, force: true });
  });

  it('reaches the cockpit named with -t, and refuses to guess between two', async () => {
    const spawned = await runTai(['spawn', '-t', 'beta', '--detach', '--label', 'in-beta', '--', 'sleep', '60'], env);
    expect(spawned.code).toBe(0);
    const beta = JSON.parse((await runTai(['status', '-t', 'beta', '--json'], env)).out) as { agents: { label: string }[] };
    expect(beta.agents.map((a) => a.label)).toContain('in-beta');
    const alpha = JSON.parse((await runTai(['status', '--target=alpha', '--json'], env)).out) as { agents: { label: string }[] };
    expect(alpha.agents.map((a) => a.label)).not.toContain('in-beta');

    const guess = await runTai(['cancel', '1'], env);
    expect(guess.code).toBe(2);
    expect(guess.err).toMatch(/2 cockpits are running; choose one with -t NAME or --socket PATH/);
    expect(guess.err).toMatch(/^ {2}alpha \(pid \d+, sleep 300\): -t alpha$/m);
    expect(guess.err).toMatch(/^ {2}beta \(pid \d+, sleep 300\): -t beta$/m);

    const none = await runTai(['status', '-t', 'gamma'], env);
    expect(none.code).toBe(2);
    expect(none.err).toMatch(/^tai: no cockpit named 'gamma' is running; running: (alpha, beta|beta, alpha) \(tai ls\)\n$/); // oldest first: both started at once
  });

  it('lists the cockpits with tai ls', async () => {
    const ls = await runTai(['ls'], env);
    expect(ls.code).toBe(0);
    expect(ls.out).toMatch(/^alpha +\d+ +sleep 300 +\S+ +0 running, 0 ask you, 0 finished +1 +\d+s$/m);
    expect(ls.out).toMatch(/^beta +\d+ +sleep 300 +\S+ +1 running, 0 ask you, 0 finished +1 +\d+s$/m);
  });

  it('refuses a name that is taken or not a name, before taking the screen', async () => {
    const taken = await new Promise<{ code: number; out: string }>((resolve) => {
      const c = cockpit(['-s', 'alpha', '--', 'sleep', '1']);
      const timer = setInterval(() => c.code !== undefined && (clearInterval(timer), resolve({ code: c.code, out: c.out })), 50);
    });
    expect(taken.code).toBe(1);
    expect(taken.out).toContain("a cockpit named 'alpha' is already running: tai attach alpha shows it, or choose another name with -s");
    const bad = await runTai(['-s', '../x'], env);
    expect(bad).toMatchObject({ code: 64, err: "tai: a cockpit's name is 1 to 32 letters, digits, '.', '_' or '-', starting with a letter or digit; got '../x'\n" });
  });

  it('refuses a TAI_NATIVE_CLIENT that makes no sense before it starts a server or attaches', async () => {
    const ended = (c: ReturnType<typeof cockpit>) => until(() => c.code !== undefined, { what: 'the refusal' }).then(() => c);
    const start = await ended(cockpit(['-s', 'gamma', '--', 'sleep', '1'], { TAI_NATIVE_CLIENT: 'yes' }));
    expect(start.code).toBe(64);
    expect(start.out).toContain("tai: TAI_NATIVE_CLIENT must be 0 or an absolute path, not 'yes'");
    const attach = await ended(cockpit(['attach', 'alpha'], { TAI_NATIVE_CLIENT: 'yes' }));
    expect(attach.code).toBe(64);
    expect(attach.out).toContain("tai attach: TAI_NATIVE_CLIENT must be 0 or an absolute path, not 'yes'");
    expect((await runTai(['ls'], env)).out).not.toMatch(/^gamma /m);
  });

  it('ends a cockpit with tai kill: its client gets its terminal back', async () => {
    const killed = await runTai(['kill', 'alpha'], env);
    expect(killed).toMatchObject({ code: 0, out: 'cockpit alpha ended (its agents are stopped)\n' });
    await until(() => clients[0]?.code !== undefined, { what: 'the client of alpha ended' });
    expect(clients[0]?.code).toBe(0);
    expect(clients[0]?.out).toContain('tai: cockpit alpha was ended by tai kill');
    expect(clients[0]?.out.lastIndexOf('\x1b[?1049l')).toBeGreaterThan(clients[0]?.out.lastIndexOf('\x1b[?1049h') ?? 0);
    expect((await runTai(['ls'], env)).out).not.toMatch(/^alpha /m);
  });
});
