/**
 * Agents of every kind on another host (docs/remote.md, "Every kind on a
 * host"): the ACP and Claude stand-ins of test/fixtures run on the "host"
 * (this machine through the private sshd of test/helpers/sshd.ts, so the
 * fixtures' paths are the same there) in a real cockpit: their JSON-RPC and
 * stream-json go over the ssh stdio, they stream into their panels, ask
 * questions that are answered, and a cancel leaves nothing on the host.
 * The built CLI (npm run build first).
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture } from '../../helpers/agents.js';
import { startCockpit, type CockpitProcess } from '../../helpers/cockpit-process.js';
import { processesRunning, startSshd, TEST_HOST, type TestSshd } from '../../helpers/sshd.js';
import { runTai } from '../../helpers/tai-cli.js';
import { until, untilPasses } from '../../helpers/until.js';
import { call } from '../../../src/io/socket/control-client.js';

let server: TestSshd;
let cockpit: CockpitProcess | undefined;
let home: string;
let env: NodeJS.ProcessEnv;
const node = process.execPath;
const claudeArgs = ['-p', '--output-format', 'stream-json', '--verbose', '--input-format', 'stream-json'];

beforeAll(async () => {
  server = await startSshd();
  home = mkdtempSync(join(tmpdir(), 'tai-remote-kinds-'));
  env = { XDG_RUNTIME_DIR: join(home, 'run'), XDG_STATE_HOME: join(home, 'state'), XDG_CONFIG_HOME: join(home, 'config'), TAI_SSH_CONFIG: server.config, NO_COLOR: '1', TERM: 'dumb' };
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

/** The host's slots in use (symlinks in its cache folder). */
function hostSlots(): string[] {
  try {
    return readdirSync(join(server.hostCache, 'tai', 'slots'));
  } catch {
    return [];
  }
}

/** Nothing of an agent whose whole command line is `command` is left on the host: its process, its reaper's folder, its slot. */
function goneFromHost(command: string): boolean {
  return processesRunning(command).length === 0 && readdirSync(server.hostTmp).length === 0 && hostSlots().length === 0;
}

async function spawnedId(args: string[]): Promise<number> {
  const spawned = await runTai(['spawn', '--detach', '--socket', socket(), '--host', TEST_HOST, ...args], env);
  expect(spawned.code, spawned.err).toBe(0);
  return Number(spawned.out.trim());
}

async function answerOnly(id: number, option: string): Promise<void> {
  let qid = '';
  await untilPasses(async () => {
    const asked = await call(socket(), { cmd: 'ask_list' });
    if (!asked.ok) throw new Error(asked.error);
    const q = asked.data.find((x) => x.panel === id && x.open);
    expect(q).toBeDefined();
    qid = q?.qid ?? '';
  }, { timeout: 20_000, interval: 200 });
  const answered = await runTai(['ask', 'answer', qid, option, '--socket', socket()], env);
  expect(answered.err).toBe('');
  expect(answered.code).toBe(0);
}

async function resultOf(id: number): Promise<{ state: string; text: string }> {
  const polled = await call(socket(), { cmd: 'poll', id, wait: 20 });
  if (!polled.ok) throw new Error(polled.error);
  return polled.data as { state: string; text: string };
}

describe('an ACP agent on another host', () => {
  it('streams into its panel labelled with the host, and a cancel leaves nothing of it on the host', async () => {
    const agent = [node, fixture('acp-agent.mjs'), 'slow'];
    const id = await spawnedId(['--kind', 'acp', '--prompt', 'tick', '--', ...agent]);
    const status = await runTai(['status', '--json', '--socket', socket()], env);
    expect(JSON.stringify(JSON.parse(status.out))).toContain(`"label":"acp acp-agent.mjs @${TEST_HOST}"`);
    await untilPasses(async () => expect((await runTai(['logs', String(id)], env)).out).toContain('tick 3. '), { timeout: 20_000, interval: 200 });
    expect(processesRunning(agent.join(' '))).toHaveLength(1);
    expect(hostSlots()).toHaveLength(1);
    expect((await runTai(['cancel', String(id), '--socket', socket()], env)).code).toBe(0);
    expect(await resultOf(id)).toMatchObject({ state: 'cancelled' });
    await until(() => goneFromHost(agent.join(' ')), { what: 'nothing of the ACP agent left on the host', timeout: 25_000, explain: cockpit?.err });
  });

  it('puts its permission request to the user (a socket spawn with host) and hears the answer', async () => {
    const spawned = await call(socket(), { cmd: 'spawn', kind: 'acp', host: TEST_HOST, argv: [node, fixture('acp-ask-agent.mjs'), 'edit'], prompt: 'edit', label: 'editor', permissions: 'ask' });
    if (!spawned.ok) throw new Error(spawned.error);
    expect(spawned.data.label).toBe(`editor @${TEST_HOST}`);
    await answerOnly(spawned.data.id, 'allow-once');
    const result = await resultOf(spawned.data.id);
    expect(result.state).toBe('done');
    expect(result.text).toContain('Answer: allow-once.');
    await until(() => readdirSync(server.hostTmp).length === 0 && hostSlots().length === 0, { what: 'the reaper folder and the slot freed', timeout: 20_000, explain: () => `tmp: ${readdirSync(server.hostTmp).join(' ')}; slots: ${hostSlots().join(' ')}; ${cockpit?.err ?? ''}` });
  });
});

describe('a Claude agent on another host', () => {
  it('is started with the arguments its runner adds (--permission-prompt-tool stdio), asks, and gets the answer over stream-json', async () => {
    const id = await spawnedId(['--kind', 'claude', '--permissions', 'ask', '--prompt', 'edit', '--', node, fixture('claude-asker.mjs'), 'once', ...claudeArgs]);
    await answerOnly(id, 'allow');
    const result = await resultOf(id);
    expect(result.state).toBe('done');
    expect(JSON.parse(result.text)).toMatchObject({ type: 'control_response', response: { response: { behavior: 'allow', toolUseID: 'toolu_1' } } });
  });

  it('runs as a registry entry with a host (@name): tai agents shows the host, and its stream comes back', async () => {
    mkdirSync(join(home, 'config', 'tai'), { recursive: true });
    const entry = { kind: 'claude', host: TEST_HOST, cwd: server.dir, command: [node, fixture('claude-emitter.mjs'), 'replay', ...claudeArgs] };
    writeFileSync(join(home, 'config', 'tai', 'agents.json'), JSON.stringify({ agents: { 'claude-far': entry } }));
    const listed = await runTai(['agents'], env);
    expect(listed.out).toMatch(new RegExp(`claude-far +claude +on ${TEST_HOST} +config`));
    const json = JSON.parse((await runTai(['agents', '--json'], env)).out) as { agents: { name: string; host?: string }[] };
    expect(json.agents.find((a) => a.name === 'claude-far')).toMatchObject({ host: TEST_HOST });
    const spawned = await runTai(['spawn', '--detach', '--allow', '--socket', socket(), '@claude-far', 'say hello'], env);
    expect(spawned.code).toBe(0);
    const id = Number(spawned.out.trim());
    const status = await runTai(['status', '--json', '--socket', socket()], env);
    expect(JSON.stringify(JSON.parse(status.out))).toContain(`"label":"@claude-far @${TEST_HOST}"`);
    const result = await resultOf(id);
    expect(result.state).toBe('done');
    expect(result.text.length).toBeGreaterThan(0);
  });
});
