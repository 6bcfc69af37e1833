/**
 * The real CLIs as the lead (docs/lead.md): each is given `tai mcp` in its
 * own MCP configuration, inside a real cockpit, and the fake model server
 * plays the lead (test/helpers/fake-model/lead-script.ts): it calls `spawn`
 * with a worker, `wait` on the id it got, and ends its turn with the head of
 * the worker's result that `wait` handed back. The worker runs in the
 * cockpit (its status lists it); the CLI's final text holds the head.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { call } from '../../src/io/socket/control-client.js';
import { startCockpit, type CockpitProcess } from '../helpers/cockpit-process.js';
import { startFakeModelServer, type FakeModelServer } from '../helpers/fake-model-server.js';
import { LEAD_FINAL } from '../helpers/fake-model/lead-script.js';
import { notInstalled, REAL_AGENTS, scratch, setupCli } from '../helpers/real-agents.js';
import { TAI_CLI } from '../helpers/tai-cli.js';

/** The worker: its head line is computed, so only its output (never the lead's spawn call) holds it. */
const WORKER = ['sh', '-c', 'echo WORKER-HEAD-$((6*7)); echo the second line'];
const HEAD = 'WORKER-HEAD-42';

type Lead = 'claude' | 'codex' | 'gemini';

let cockpit: CockpitProcess | undefined;
let model: FakeModelServer | undefined;
afterEach(async () => {
  await cockpit?.stop();
  await model?.close();
  cockpit = undefined;
  model = undefined;
});

/** The lead CLI's command line and environment, with `tai mcp` configured the way that CLI takes it. */
function leadCommand(cli: Lead, url: string, home: string, taiEnv: Record<string, string>): { argv: string[]; env: Record<string, string> } {
  const server = { command: process.execPath, args: [TAI_CLI, 'mcp'], env: taiEnv };
  const prompt = 'Start one worker through tai and tell me the head of its result.';
  switch (cli) {
    case 'claude': {
      const config = join(home, 'mcp.json');
      writeFileSync(config, JSON.stringify({ mcpServers: { tai: server } }));
      return {
        argv: [join(REAL_AGENTS, '.bin/claude'), '-p', '--mcp-config', config, '--strict-mcp-config', '--allowedTools', 'mcp__tai__spawn,mcp__tai__wait', '--output-format', 'text', prompt],
        env: setupCli('claude', url, home).env,
      };
    }
    case 'codex': {
      const env = setupCli('codex', url, home).env;
      const table = `mcp_servers.tai={command=${JSON.stringify(server.command)},args=${JSON.stringify(server.args)},default_tools_approval_mode="approve",env={${Object.entries(taiEnv).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(',')}}}`;
      return { argv: [join(REAL_AGENTS, '.bin/codex'), 'exec', '--skip-git-repo-check', '-c', table, '-c', 'approval_policy="never"', prompt], env };
    }
    case 'gemini': {
      mkdirSync(join(home, '.gemini'), { recursive: true });
      const settings = { security: { auth: { selectedType: 'gemini-api-key' } }, general: { maxAttempts: 2 }, privacy: { usageStatisticsEnabled: false }, mcpServers: { tai: { ...server, trust: true } } };
      writeFileSync(join(home, '.gemini/settings.json'), JSON.stringify(settings));
      return {
        argv: [join(REAL_AGENTS, '.bin/gemini'), '-m', 'gemini-2.5-flash', '--allowed-mcp-server-names', 'tai', '-y', '-p', prompt],
        env: { GOOGLE_GEMINI_BASE_URL: url, GEMINI_API_KEY: 'dummy', GEMINI_CLI_TRUST_WORKSPACE: 'true' },
      };
    }
  }
}

/** Runs the lead CLI to its end; its output and exit code. */
function runLead(argv: readonly string[], env: Record<string, string>, cwd: string): Promise<{ code: number | null; out: string; err: string }> {
  const [program = '', ...args] = argv;
  // Its own process group: a stuck run is killed with its MCP server and tools.
  const child = spawn(program, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const deadline = setTimeout(() => process.kill(-(child.pid ?? 0), 'SIGKILL'), 90_000);
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      clearTimeout(deadline);
      resolve({ code, out, err });
    }),
  );
}

const missing = notInstalled();
describe.skipIf(missing !== undefined)(`a real CLI as the lead, through tai mcp${missing ? ` (skipped: ${missing})` : ''}`, () => {
  for (const cli of ['claude', 'codex', 'gemini'] as const) {
    it(`${cli} spawns a worker with spawn, gets its end with wait, and ends with the worker's result head; the worker ran in the cockpit`, async () => {
      model = await startFakeModelServer({ lead: { argv: WORKER, label: 'worker' } });
      const { dir, home, project } = scratch();
      const runtime = join(dir, 'run');
      mkdirSync(runtime, { mode: 0o700 });
      const taiEnv = { XDG_STATE_HOME: join(dir, 'state'), XDG_RUNTIME_DIR: runtime };
      cockpit = await startCockpit({ ...taiEnv, HOME: home });
      const lead = leadCommand(cli, model.url, home, { ...taiEnv, TAI_PLEXER_SOCKET: cockpit.socket });
      const env = { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, HOME: home, ...taiEnv, TAI_PLEXER_SOCKET: cockpit.socket, ...lead.env };
      const ran = await runLead(lead.argv, env, project);
      const seen = `exit ${ran.code}\nstdout: ${ran.out}\nstderr: ${ran.err.slice(-3000)}\nrequests: ${model.requests.map((r) => `${r.n} ${r.provider} ${r.step ?? ''}`).join(', ')}\ntools: ${JSON.stringify((model.requests[0]?.body as { tools?: unknown[] } | undefined)?.tools?.map((t) => JSON.stringify(t).slice(0, 300)))}`;
      expect(ran.out, seen).toContain(`${LEAD_FINAL} ${HEAD}`);
      const status = await call(cockpit.socket, { cmd: 'status' });
      expect(status.ok && status.data.agents.find((r) => r.label === 'worker')?.state, seen).toBe('done');
    }, 180_000);
  }
});
