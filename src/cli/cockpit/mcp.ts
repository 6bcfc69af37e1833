/**
 * `tai mcp`: the lead's MCP server on stdio (docs/lead.md). Inside a cockpit it drives it over the control socket;
 * outside one it supervises the agents here, as `tai spawn` does. It ends when its client closes stdin (a
 * cockpit's agents go on, its own stop); `--config CLI` prints what that CLI needs to use it.
 */
import { processBackend, cockpitBackend, type LeadBackend } from '../../io/lead/lead-backend.js';
import { LEAD_CLIENTS, leadConfig, type LeadClient } from '../../io/lead/lead-config.js';
import { createLeadServer } from '../../io/lead/lead-server.js';
import { LeadSession } from '../../io/lead/lead-session.js';
import { StateDbError } from '../../io/storage/state-db.js';
import { readCommandLine, usageError } from '../command-line.js';
import { CliOutput, field, processOutput } from '../output.js';

const USAGE =
  'usage: tai mcp [--socket PATH]          the lead\'s MCP server on stdio (inside a cockpit it drives it)\n' +
  `       tai mcp --config ${LEAD_CLIENTS.join('|')}   what that CLI needs to use it\n` +
  'docs/lead.md lists the tools.\n';

const SPEC = { name: 'mcp', usage: USAGE, options: { socket: { type: 'string' }, config: { type: 'string' } } } as const;

/** Runs `tai mcp ARGS`; returns the exit code once the client has gone. */
export async function run(args: readonly string[], out: CliOutput = processOutput, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const parsed = readCommandLine(SPEC, args, out);
  if (typeof parsed === 'number') return parsed;
  if (parsed.positionals.length > 0) return usageError(SPEC, out, `unexpected argument '${parsed.positionals[0] ?? ''}'`);
  const client = parsed.values.config;
  if (client !== undefined) {
    if (!(LEAD_CLIENTS as readonly string[]).includes(client)) return usageError(SPEC, out, `--config takes one of ${LEAD_CLIENTS.join(', ')}, got '${client}'`);
    out.say(leadConfig(client as LeadClient, env));
    return 0;
  }
  const socket = parsed.values.socket ?? env['TAI_PLEXER_SOCKET'];
  let backend: LeadBackend;
  try {
    backend = socket ? cockpitBackend(socket) : processBackend(env);
  } catch (err) {
    if (!(err instanceof StateDbError)) throw err;
    out.warn(`tai mcp: ${field(err.message)}\n`);
    return 74;
  }
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  const session = new LeadSession(backend, env);
  const server = createLeadServer(session, await version());
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = resolve;
    // The SDK's transport does not watch for the end of stdin: a client that went away ends the server.
    process.stdin.once('end', () => void transport.close());
    process.stdin.once('close', () => void transport.close());
  });
  await server.connect(transport);
  await closed;
  session.close();
  backend.close();
  return 0;
}

async function version(): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  const pkg = JSON.parse(await readFile(new URL('../../../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}
