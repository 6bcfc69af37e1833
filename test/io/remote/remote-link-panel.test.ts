/**
 * A remote agent's lost link in a real cockpit (docs/remote.md, "Held during
 * a lost link"): its panel is held as for a machine outage (`waiting`, the
 * wall clock paused, so a wait longer than its `--timeout` is not charged),
 * `tai status`, `tai outage status --json` and `tai report` show the host
 * waited for and the agent held, and the hold ends at the reattach. Against
 * the private sshd of test/helpers/sshd.ts, the link cut by killing its
 * session processes.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCockpit, type CockpitProcess } from '../../helpers/cockpit-process.js';
import { descendants, processesRunning, startSshd, TEST_HOST, type TestSshd } from '../../helpers/sshd.js';
import { runTai } from '../../helpers/tai-cli.js';
import { untilPasses } from '../../helpers/until.js';

let server: TestSshd;
let cockpit: CockpitProcess | undefined;
let home: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  server = await startSshd();
  home = mkdtempSync(join(tmpdir(), 'tai-remote-held-'));
  // The outage schedule at 0.3: a lost link's first probe of the host comes 36 s after the loss.
  env = { XDG_RUNTIME_DIR: join(home, 'run'), XDG_STATE_HOME: join(home, 'state'), TAI_SSH_CONFIG: server.config, TAI_OUTAGE_TIME_SCALE: '0.6', NO_COLOR: '1', TERM: 'dumb' };
  cockpit = await startCockpit(env);
});
afterAll(async () => {
  await cockpit?.stop();
  await server?.stop();
  rmSync(home, { recursive: true, force: true });
});

function readCmd(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return '';
  }
}

describe('a remote agent whose link is lost, in the cockpit', () => {
  it('is held waiting for the host (its wall clock paused), shown by status, outage status and report, and runs on after the reattach', { timeout: 120_000 }, async () => {
    if (cockpit === undefined) throw new Error('no cockpit');
    const go = join(home, 'go');
    const script = `echo first; while [ ! -e ${go} ]; do sleep 0.1; done; echo second`;
    const spawned = await runTai(['spawn', '--detach', '--timeout', '30', '--socket', cockpit.socket, '--host', TEST_HOST, '--', 'sh', '-c', script], env);
    expect(spawned.code).toBe(0);
    const id = Number(spawned.out.trim());
    const stateOf = async (): Promise<string | undefined> => {
      const status = JSON.parse((await runTai(['status', '--json', '--socket', cockpit!.socket], env)).out) as { agents: { id: number; state: string }[] };
      return status.agents.find((a) => a.id === id)?.state;
    };
    await untilPasses(async () => expect((await runTai(['logs', String(id)], env)).out).toContain('first\n'), { timeout: 30_000, interval: 200 });
    for (const pid of descendants(server.process.pid ?? -1).filter((p) => readCmd(p).startsWith('sshd'))) process.kill(pid, 'SIGKILL');
    await untilPasses(async () => expect(await stateOf()).toBe('waiting'), { timeout: 15_000, interval: 250 });
    const status = await runTai(['status', '--socket', cockpit.socket], env);
    expect(status.out).toMatch(new RegExp(`waiting for host taitest \\(ssh://taitest\\) since .*: probe 1 at .*; held: #${id} command sh @taitest`));
    const outages = JSON.parse((await runTai(['outage', 'status', '--json'], env)).out) as { service: string; host?: string; held?: { panel: number }[] }[];
    expect(outages).toEqual([expect.objectContaining({ service: 'host', host: 'taitest', held: [expect.objectContaining({ panel: id, stopPending: false })] })]);
    expect((await runTai(['report'], env)).out).toContain(`held: #${id} command sh @taitest`);
    // The wait outlasts the agent's 30 s wall clock: the time held is not charged.
    await untilPasses(async () => expect(await stateOf()).toBe('running'), { timeout: 60_000, interval: 500 });
    await untilPasses(async () => expect((await runTai(['logs', String(id)], env)).out).toContain('reattached to the agent on taitest'), { timeout: 30_000, interval: 250 });
    writeFileSync(go, '');
    await untilPasses(async () => expect(await stateOf()).toBe('done'), { timeout: 30_000, interval: 250 });
    expect((await runTai(['outage', 'status', '--json'], env)).out.trim()).toBe('[]');
  });

  it('holds an ACP agent too, and a cancel while held waits for the host: the panel stays held, reads on at the reattach, ends cancelled, and nothing of it is left on the host', { timeout: 120_000 }, async () => {
    if (cockpit === undefined) throw new Error('no cockpit');
    const agent = [process.execPath, join(import.meta.dirname, '../../fixtures/acp-agent.mjs'), 'slow'];
    const spawned = await runTai(['spawn', '--detach', '--socket', cockpit.socket, '--host', TEST_HOST, '--kind', 'acp', '--prompt', 'tick', '--', ...agent], env);
    expect(spawned.code).toBe(0);
    const id = Number(spawned.out.trim());
    const stateOf = async (): Promise<string | undefined> => {
      const status = JSON.parse((await runTai(['status', '--json', '--socket', cockpit!.socket], env)).out) as { agents: { id: number; state: string }[] };
      return status.agents.find((a) => a.id === id)?.state;
    };
    await untilPasses(async () => expect((await runTai(['logs', String(id)], env)).out).toContain('tick 3. '), { timeout: 30_000, interval: 250 });
    for (const pid of descendants(server.process.pid ?? -1).filter((p) => readCmd(p).startsWith('sshd'))) process.kill(pid, 'SIGKILL');
    await untilPasses(async () => expect(await stateOf()).toBe('waiting'), { timeout: 15_000, interval: 250 });
    const lastTick = async (): Promise<number> => Math.max(...[...(await runTai(['logs', String(id)], env)).out.matchAll(/tick (\d+)\./g)].map((m) => Number(m[1])));
    const atCut = await lastTick();
    expect((await runTai(['cancel', String(id), '--socket', cockpit.socket], env)).code).toBe(0);
    expect(await stateOf()).toBe('waiting');
    // The board's hard stop would end the local side long before the host's first probe (36 s): it waits, reattaches
    // (the agent's ticks written on the host meanwhile reach the panel), and delivers the cancel.
    await untilPasses(async () => expect(await stateOf()).toBe('cancelled'), { timeout: 90_000, interval: 500 });
    expect(await lastTick()).toBeGreaterThan(atCut + 100);
    // Its turn did not end on the cancel, so the board's hard stop came: it reaches the host as a stop, and the host's
    // own grace ends the agent there, instead of the lost link's grace.
    await untilPasses(() => expect(processesRunning(agent.join(' '))).toEqual([]), { timeout: 40_000, interval: 500 });
  });
});

