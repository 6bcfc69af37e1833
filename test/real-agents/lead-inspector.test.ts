/**
 * The MCP Inspector (`@modelcontextprotocol/inspector`, pinned in
 * test/real-agents/package.json) drives `tai mcp` over stdio in its CLI
 * mode, as a client that is not tai's own: it lists the tools, calls them,
 * and gets tool errors for bad input (docs/lead.md, "Checking the server
 * with the MCP Inspector"). Outside a cockpit: each run is a server of its own.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REAL_AGENTS } from '../helpers/real-agents.js';
import { TAI_CLI } from '../helpers/tai-cli.js';

const INSPECTOR = join(REAL_AGENTS, '.bin/mcp-inspector');
const missing = existsSync(INSPECTOR) ? undefined : `the MCP Inspector is not installed (npm install --prefix test/real-agents): missing ${INSPECTOR}`;

interface ToolReply {
  readonly content?: readonly { readonly type: string; readonly text?: string }[];
  readonly isError?: boolean;
  readonly tools?: readonly { readonly name: string; readonly description?: string }[];
}

/** Runs the Inspector's CLI against `node dist/src/cli.js mcp` with `args`; its JSON answer. */
function inspect(...args: string[]): ToolReply {
  const dir = mkdtempSync(join(tmpdir(), 'tai-inspector-'));
  mkdirSync(join(dir, 'run'), { mode: 0o700 });
  const env = { ...process.env, XDG_STATE_HOME: join(dir, 'state'), XDG_RUNTIME_DIR: join(dir, 'run'), XDG_CONFIG_HOME: join(dir, 'config'), TAI_PLEXER_SOCKET: '', NO_COLOR: '1' };
  const r = spawnSync(INSPECTOR, ['--cli', process.execPath, TAI_CLI, 'mcp', ...args], { env, encoding: 'utf8', timeout: 60_000 });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as ToolReply;
}

const text = (reply: ToolReply): string => (reply.content ?? []).map((c) => c.text ?? '').join('\n');

describe.skipIf(missing !== undefined)(`tai mcp under the MCP Inspector${missing ? ` (skipped: ${missing})` : ''}`, () => {
  it('lists every tool of the lead, each with a description', () => {
    const tools = inspect('--method', 'tools/list').tools ?? [];
    expect(tools.map((t) => t.name).sort()).toEqual(['answer', 'cancel', 'lane_diff', 'lane_merge', 'questions', 'read_record', 'result', 'search_records', 'spawn', 'status', 'wait'].sort());
    expect(tools.every((t) => (t.description ?? '').length > 40)).toBe(true);
  }, 90_000);

  it('calls status and spawn, and says where the workers run', () => {
    const status = inspect('--method', 'tools/call', '--tool-name', 'status');
    expect(status.isError).not.toBe(true);
    expect(text(status)).toContain('this lead has started no agent yet');
    expect(text(status)).toContain('(no cockpit)');
    const agents = JSON.stringify([{ argv: ['sh', '-c', 'echo hi'], task: 'say hi', label: 'hello' }]);
    const spawned = inspect('--method', 'tools/call', '--tool-name', 'spawn', '--tool-arg', `agents=${agents}`);
    expect(spawned.isError).not.toBe(true);
    expect(text(spawned)).toMatch(/started agent #1 hello/);
  }, 90_000);

  it('gets tool errors for an id not its own and for a timeout out of range', () => {
    const notOurs = inspect('--method', 'tools/call', '--tool-name', 'wait', '--tool-arg', 'ids=[5]', '--tool-arg', 'timeout_s=1');
    expect(notOurs.isError).toBe(true);
    expect(text(notOurs)).toContain('agent #5 was not started by this lead');
    const tooLong = inspect('--method', 'tools/call', '--tool-name', 'wait', '--tool-arg', 'timeout_s=900');
    expect(tooLong.isError).toBe(true);
    expect(text(tooLong)).toContain('timeout_s');
  }, 90_000);
});
