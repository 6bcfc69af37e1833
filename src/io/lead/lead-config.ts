/**
 * What each lead CLI needs to use `tai mcp` (`tai mcp --config NAME`; docs/lead.md, "Setup, one line per CLI"), in
 * its own form. The server is `tai` when on PATH, else this very tai (node and its script), so the line works as
 * printed.
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { WAIT_MAX_S } from '../../core/lead/lead-view.js';
import { which } from '../path-lookup.js';

/** The CLIs `--config` knows. */
export const LEAD_CLIENTS = ['claude', 'codex', 'gemini', 'opencode'] as const;
export type LeadClient = (typeof LEAD_CLIENTS)[number];

/** The environment a cockpit gives its main program, which the server needs to find that cockpit and the state. */
export const LEAD_ENV = ['TAI_PLEXER_SOCKET', 'XDG_STATE_HOME', 'XDG_RUNTIME_DIR', 'XDG_CONFIG_HOME'] as const;

/** The command that starts the server: `tai mcp`, or node and this tai's script. */
export function serverCommand(env: NodeJS.ProcessEnv): readonly string[] {
  const script = fileURLToPath(new URL('../../cli.js', import.meta.url));
  const onPath = which('tai', env['PATH']);
  const same = onPath !== undefined && safeReal(onPath) === safeReal(script);
  return same ? ['tai', 'mcp'] : [process.execPath, script, 'mcp'];
}

/** The text `tai mcp --config client` prints. */
export function leadConfig(client: LeadClient, env: NodeJS.ProcessEnv): string {
  const [command = 'tai', ...args] = serverCommand(env);
  const timeoutMs = (WAIT_MAX_S + 60) * 1000;
  switch (client) {
    case 'claude':
      return `claude mcp add --scope user tai -- ${[command, ...args].map(shellWord).join(' ')}\n`;
    case 'codex':
      return (
        '# ~/.codex/config.toml\n' +
        '[mcp_servers.tai]\n' +
        `command = ${JSON.stringify(command)}\n` +
        `args = ${JSON.stringify(args)}\n` +
        `env_vars = ${JSON.stringify(LEAD_ENV)}\n` +
        'default_tools_approval_mode = "approve"\n' +
        `tool_timeout_sec = ${timeoutMs / 1000}\n`
      );
    case 'gemini':
      return `${JSON.stringify({ mcpServers: { tai: { command, args, timeout: timeoutMs } } }, null, 2)}\n`;
    case 'opencode':
      return `${JSON.stringify({ $schema: 'https://opencode.ai/config.json', mcp: { tai: { type: 'local', command: [command, ...args], enabled: true } } }, null, 2)}\n`;
  }
}

function shellWord(word: string): string {
  return /^[\w./@:=+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function safeReal(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
