/**
 * The lead's MCP server inside a real cockpit (test/helpers/cockpit-process.ts):
 * its agents are the cockpit's (seen by `tai status`), a lead that goes away
 * while its wait blocks leaves them running, two leads never share an agent's
 * wait; and `tai wait`, `tai mcp --config` from the shell.
 */
import { existsSync } from 'node:fs';
import { afterEach, describe, expect, test } from 'vitest';
import { call } from '../../../src/io/socket/control-client.js';
import { startCockpit, type CockpitProcess } from '../../helpers/cockpit-process.js';
import { runTai, TAI_CLI } from '../../helpers/tai-cli.js';
import { until } from '../../helpers/until.js';
import { connectLead, leadEnv, type Lead } from './mcp-client.js';

let cockpit: CockpitProcess | undefined;
const leads: Lead[] = [];
afterEach(async () => {
  for (const l of leads.splice(0)) await l.close();
  await cockpit?.stop();
  cockpit = undefined;
});

async function setUp(): Promise<{ env: Record<string, string>; cockpit: CockpitProcess; lead: () => Promise<Lead> }> {
  const env = leadEnv();
  const c = await startCockpit(env);
  cockpit = c;
  const lead = async (): Promise<Lead> => {
    const l = await connectLead({ ...env, TAI_PLEXER_SOCKET: c.socket });
    leads.push(l);
    return l;
  };
  return { env, cockpit: c, lead };
}

function idOf(text: string): number {
  const m = /started agent #(\d+)/.exec(text);
  if (!m) throw new Error(`no id in: ${text}`);
  return Number(m[1]);
}

describe.runIf(existsSync(TAI_CLI))('tai mcp inside a cockpit', () => {
  test("spawns into the cockpit (tai status lists the agent) and says so in its instructions; wait gets the agent's end", async () => {
    const { env, cockpit: c, lead } = await setUp();
    const l = await lead();
    expect(l.client.getInstructions()).toContain('It drives the tai cockpit around you');
    const id = idOf((await l.call('spawn', { agents: [{ argv: ['sh', '-c', 'sleep 1; echo cockpit worker done'], label: 'cw' }] })).text);
    const status = await runTai(['status', '--json', '--socket', c.socket], env);
    expect(status.out).toContain('"label":"cw"');
    const waited = await l.call('wait', { ids: [id], timeout_s: 120 });
    expect(waited.text).toContain(`agent #${id} cw done`);
    expect(waited.text).toContain('cockpit worker done');
  }, 90_000);

  test('a lead that disconnects while its wait blocks ends, and its agent goes on under the cockpit', async () => {
    const { cockpit: c, lead } = await setUp();
    const l = await lead();
    const id = idOf((await l.call('spawn', { agents: [{ argv: ['sleep', '600'], label: 'keeps' }] })).text);
    const pid = l.transport.pid;
    const pending = l.call('wait', { timeout_s: 300 }).catch((err: unknown) => err);
    let running = false;
    await until(() => {
      void call(c.socket, { cmd: 'poll', id }).then((s) => (running = s.ok && s.data.state === 'running'));
      return running;
    }, { what: 'the agent running' });
    await l.close();
    leads.splice(0);
    await pending;
    await until(() => !isAlive(pid), { what: 'tai mcp ended after its client left' });
    const after = await call(c.socket, { cmd: 'poll', id });
    expect(after.ok && after.data.state).toBe('running');
  }, 90_000);

  test("two leads: the second cannot wait on or cancel the first's agent; each gets its own events", async () => {
    const { lead } = await setUp();
    const [a, b] = [await lead(), await lead()];
    const ida = idOf((await a.call('spawn', { agents: [{ argv: ['sh', '-c', 'echo from a'], label: 'a1' }] })).text);
    const idb = idOf((await b.call('spawn', { agents: [{ argv: ['sh', '-c', 'echo from b'], label: 'b1' }] })).text);
    expect(await b.call('wait', { ids: [ida] })).toEqual({ isError: true, text: `agent #${ida} was not started by this lead (its agents: #${idb}); wait and cancel take the ids spawn returned` });
    expect(await b.call('cancel', { id: ida })).toMatchObject({ isError: true });
    expect((await a.call('wait', { timeout_s: 120 })).text).toContain('from a');
    const bWait = await b.call('wait', { timeout_s: 120 });
    expect(bWait.text).toContain('from b');
    expect(bWait.text).not.toContain('from a');
  }, 90_000);

  test('tai wait prints the next end with its exit code, 2 when nothing ended in time, and the failed one\'s code with --all', async () => {
    const { env, cockpit: c } = await setUp();
    const spawn = async (script: string): Promise<string> => (await runTai(['spawn', '--detach', '--socket', c.socket, '--', 'sh', '-c', script], env)).out.trim();
    const sleeper = await spawn('exec sleep 600');
    const none = await runTai(['wait', sleeper, '--timeout', '1', '--socket', c.socket], env);
    expect(none.code).toBe(2);
    expect(none.err).toBe(`tai wait: nothing ended or asked within 1 s; still running: #${sleeper}\n`);
    const ok = await spawn('echo fine');
    const bad = await spawn('echo broken; exit 3');
    const all = await runTai(['wait', ok, bad, '--all', '--socket', c.socket], env);
    expect(all.code).toBe(1);
    expect(all.out).toContain('fine');
    expect(all.out).toContain('broken');
    const json = await runTai(['wait', ok, '--json', '--socket', c.socket], env);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.out)).toMatchObject({ kind: 'finished', id: Number(ok), state: 'done', head: 'fine\n' });
    expect((await runTai(['wait', 'x', '--socket', c.socket], env)).code).toBe(64);
    expect((await runTai(['wait', '--any', '--all', '--socket', c.socket], env)).code).toBe(64);
  }, 90_000);
});

describe.runIf(existsSync(TAI_CLI))('tai mcp --config', () => {
  test("prints each CLI's own form: claude mcp add, Codex's mcp_servers table, Gemini's mcpServers, opencode's mcp", async () => {
    const env = leadEnv();
    const claude = await runTai(['mcp', '--config', 'claude'], env);
    expect(claude.out).toMatch(/^claude mcp add --scope user tai -- .*mcp\n$/);
    const codex = await runTai(['mcp', '--config', 'codex'], env);
    expect(codex.out).toContain('[mcp_servers.tai]\ncommand = ');
    expect(codex.out).toContain('env_vars = ["TAI_PLEXER_SOCKET",');
    expect(JSON.parse((await runTai(['mcp', '--config', 'gemini'], env)).out).mcpServers.tai.args.at(-1)).toBe('mcp');
    expect(JSON.parse((await runTai(['mcp', '--config', 'opencode'], env)).out).mcp.tai).toMatchObject({ type: 'local', enabled: true });
    const bad = await runTai(['mcp', '--config', 'vim'], env);
    expect(bad.code).toBe(64);
    expect(bad.err).toContain("tai mcp: --config takes one of claude, codex, gemini, opencode, got 'vim'");
  });
});

function isAlive(pid: number | null): boolean {
  if (pid === null) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
