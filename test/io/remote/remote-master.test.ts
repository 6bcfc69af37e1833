/**
 * The shared connection outlives any one agent (docs/remote.md, "One
 * connection per host"): the agent service starts the host's master, never
 * an agent's wrapper nor a `tai spawn` run inside an agent, so stopping the
 * agent whose spawn brought the master up leaves the master, and every other
 * agent streaming through it, as they were (the same master pid, no new login
 * on the sshd). A real cockpit, the private sshd of test/helpers/sshd.ts and
 * the built CLI (npm run build first).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCockpit, type CockpitProcess } from '../../helpers/cockpit-process.js';
import { startSshd, TEST_HOST, type TestSshd } from '../../helpers/sshd.js';
import { runTai, TAI_CLI } from '../../helpers/tai-cli.js';
import { until, untilPasses } from '../../helpers/until.js';
import { call } from '../../../src/io/socket/control-client.js';
import { checkArgv, exitArgv } from '../../../src/io/remote/ssh-argv.js';
import { placeOf } from '../../../src/io/remote/ssh-master.js';

let server: TestSshd;
let cockpit: CockpitProcess | undefined;
let home: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  server = await startSshd();
  home = mkdtempSync(join(tmpdir(), 'tai-remote-master-'));
  env = { XDG_RUNTIME_DIR: join(home, 'run'), XDG_STATE_HOME: join(home, 'state'), TAI_SSH_CONFIG: server.config, NO_COLOR: '1', TERM: 'dumb' };
  cockpit = await startCockpit(env);
});
afterAll(async () => {
  await cockpit?.stop();
  await server?.stop();
  rmSync(home, { recursive: true, force: true });
});

function socket(): string {
  if (cockpit === undefined) throw new Error('no cockpit');
  return cockpit.socket;
}

/** The pid of the host's master (`ssh -O check`), or undefined when none is up. */
function masterPid(): number | undefined {
  const [file, ...args] = checkArgv(placeOf(TEST_HOST, env));
  const run = spawnSync(file ?? 'ssh', args, { encoding: 'utf8' });
  const pid = /pid=(\d+)/.exec(run.stderr)?.[1];
  return run.status === 0 && pid !== undefined ? Number(pid) : undefined;
}

/** Logins the sshd accepted so far: one per connection made. */
function logins(): number {
  return server.log().split('\n').filter((l) => l.includes('Accepted publickey')).length;
}

/** An agent that writes `NAME N` five times a second. */
function ticker(name: string): string[] {
  return ['sh', '-c', `i=0; while :; do i=$((i+1)); echo ${name} $i; sleep 0.2; done`];
}

async function logsOf(id: number): Promise<string> {
  return (await runTai(['logs', String(id)], env)).out;
}

/** The highest N of the `NAME N` lines in an agent's transcript. */
async function ticks(id: number, name: string): Promise<number> {
  return Math.max(0, ...[...(await logsOf(id)).matchAll(new RegExp(`${name} (\\d+)`, 'g'))].map((m) => Number(m[1])));
}

async function spawnTicker(name: string): Promise<number> {
  // A socket request, as the cockpit's @name line and the lead make it: no tai spawn process checks the host first.
  const spawned = await call(socket(), { cmd: 'spawn', kind: 'command', host: TEST_HOST, argv: ticker(name), label: name });
  if (!spawned.ok) throw new Error(spawned.error);
  await untilPasses(async () => expect(await ticks(spawned.data.id, name)).toBeGreaterThanOrEqual(3), { timeout: 30_000, interval: 200 });
  return spawned.data.id;
}

async function cancel(id: number): Promise<void> {
  expect((await runTai(['cancel', String(id), '--socket', socket()], env)).code).toBe(0);
  const polled = await call(socket(), { cmd: 'poll', id, wait: 20 });
  if (!polled.ok) throw new Error(polled.error);
  expect(polled.data).toMatchObject({ state: 'cancelled' });
}

/** The agent goes on streaming: five more lines than it has now, and no word of a lost link. */
async function streamsOn(id: number, name: string): Promise<void> {
  const had = await ticks(id, name);
  await untilPasses(async () => expect(await ticks(id, name)).toBeGreaterThanOrEqual(had + 5), { timeout: 20_000, interval: 200 });
  expect(await logsOf(id)).not.toContain('lost the link');
}

describe("a host's shared connection", () => {
  it('outlives the agent whose spawn started it: the second agent streams on through the same master', { timeout: 120_000 }, async () => {
    expect(masterPid()).toBeUndefined();
    const first = await spawnTicker('first');
    const master = masterPid();
    expect(master).toBeDefined();
    const second = await spawnTicker('second');
    const before = logins();
    await cancel(first);
    await streamsOn(second, 'second');
    expect(masterPid()).toBe(master);
    expect(logins()).toBe(before);
    await cancel(second);
  });

  it('outlives a local agent that ran tai spawn --host and ended: the remote agent streams on through the same master', { timeout: 120_000 }, async () => {
    const [file, ...args] = exitArgv(placeOf(TEST_HOST, env));
    spawnSync(file ?? 'ssh', args);
    await until(() => masterPid() === undefined, { what: 'no master up' });
    // A local agent (under its own reaper) starts an agent on the host through the cockpit, then ends.
    const spawner = await call(socket(), { cmd: 'spawn', kind: 'command', argv: [process.execPath, TAI_CLI, 'spawn', '--detach', '--socket', socket(), '--host', TEST_HOST, '--label', 'third', '--', ...ticker('third')] });
    if (!spawner.ok) throw new Error(spawner.error);
    const ended = await call(socket(), { cmd: 'poll', id: spawner.data.id, wait: 30 });
    if (!ended.ok) throw new Error(ended.error);
    expect(ended.data).toMatchObject({ state: 'done' });
    const third = Number((ended.data as { text: string }).text.trim());
    await untilPasses(async () => expect(await ticks(third, 'third')).toBeGreaterThanOrEqual(3), { timeout: 30_000, interval: 200 });
    const master = masterPid();
    expect(master).toBeDefined();
    const before = logins();
    await streamsOn(third, 'third');
    expect(masterPid()).toBe(master);
    expect(logins()).toBe(before);
    await cancel(third);
  });
});
