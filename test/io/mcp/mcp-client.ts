/**
 * `tai mcp` as a lead's CLI runs it: the built CLI spawned by the MCP SDK's
 * own StdioClientTransport, spoken to by the SDK's Client over the real pipe
 * (`npm run build` first). Each server gets its own state, runtime and
 * config folders.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TAI_CLI } from '../../helpers/tai-cli.js';
import { testEnv } from '../../helpers/test-env.js';

/** A test's folders: state, runtime (0700), config, home. */
export function leadEnv(): Record<string, string> {
  const root = mkdtempSync(join(tmpdir(), 'tai-mcp-'));
  const run = join(root, 'run');
  mkdirSync(run, { mode: 0o700 });
  return { XDG_STATE_HOME: join(root, 'state'), XDG_RUNTIME_DIR: run, XDG_CONFIG_HOME: join(root, 'config'), HOME: root, NO_COLOR: '1', TAI_PLEXER_SOCKET: '' };
}

/** A connected client and its server's process. */
export interface Lead {
  readonly client: Client;
  readonly transport: StdioClientTransport;
  /** Calls a tool; returns its text and whether it is a tool error. */
  call(name: string, args?: Record<string, unknown>): Promise<{ text: string; isError: boolean }>;
  close(): Promise<void>;
}

/** Starts `tai mcp ARGS` with `env` (over the test runner's own) and connects the SDK's client to it. */
export async function connectLead(env: Record<string, string>, args: readonly string[] = [], cwd?: string): Promise<Lead> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [TAI_CLI, 'mcp', ...args],
    env: testEnv(env),
    stderr: 'pipe',
    ...(cwd === undefined ? {} : { cwd }),
  });
  const client = new Client({ name: 'tai-test-lead', version: '1' });
  await client.connect(transport);
  return {
    client,
    transport,
    async call(name, args = {}) {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
      return { text, isError: result.isError === true };
    },
    close: () => client.close(),
  };
}
