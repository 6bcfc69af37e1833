/**
 * `tai agents [--json]`: the agent registry in effect (built-ins merged with
 * the user's agents.json) and whether each agent's program is found on PATH.
 * Exit 0 on a listing, 2 when the registry file is unusable, 64 for a bad
 * command line. The schema: docs/agents-registry.md.
 */
import { BUILTIN_AGENTS, permissionNote, RegistryError, type AgentEntry } from '../../core/agents/agent-registry.js';
import { loadRegistry, locateAgent, type LoadedRegistry } from '../../io/agents/spawn/agent-config.js';
import { readCommandLine, usageError } from '../command-line.js';
import { field, processOutput } from '../output.js';

const USAGE = 'usage: tai agents [--json]\n';

/** One agent as `tai agents` reports it. */
export interface AgentListing {
  readonly entry: AgentEntry;
  /** built-in, or config when the user's file defines (or replaces) it. */
  readonly origin: 'built-in' | 'config';
  /** The program's full path, or undefined when it is not found. */
  readonly program: string | undefined;
}

const SPEC = { name: 'agents', usage: USAGE, options: { json: { type: 'boolean' } } } as const;

/** Runs `tai agents ARGS`; returns the exit code. */
export async function run(args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const parsed = readCommandLine(SPEC, args, processOutput);
  if (typeof parsed === 'number') return parsed;
  if (parsed.positionals.length > 0) return usageError(SPEC, processOutput, `unexpected argument '${parsed.positionals[0]}'`);
  const o = parsed.values;
  let registry: LoadedRegistry;
  try {
    registry = await loadRegistry(undefined, env);
  } catch (err) {
    if (!(err instanceof RegistryError)) throw err;
    processOutput.warn(`tai agents: ${field(err.message)}\n(the schema: docs/agents-registry.md)\n`);
    return 2;
  }
  const userNames = new Set(registry.user.map((e) => e.name));
  const listing: AgentListing[] = registry.entries.map((entry) => ({
    entry,
    origin: userNames.has(entry.name) ? 'config' : 'built-in',
    // An agent on a host is looked for there (tai hosts check HOST), not on this PATH.
    program: entry.host === undefined ? locateAgent(entry, env) : undefined,
  }));
  if (o.json) processOutput.json(listingJson(registry, listing));
  else processOutput.say(formatAgents(registry, listing));
  return 0;
}

/** The human form: a table (name, kind, available or not found or `on HOST`, origin, command), the agents the permission policy cannot hold back, then where the config is. */
export function formatAgents(registry: LoadedRegistry, listing: readonly AgentListing[]): string {
  const rows = [
    ['NAME', 'KIND', 'STATUS', 'FROM', 'COMMAND'],
    ...listing.map((a) => [a.entry.name, a.entry.kind, statusOf(a), a.origin, a.entry.command.map(shellQuote).join(' ')]),
  ];
  const widths = [0, 1, 2, 3].map((i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  const lines = rows.map((r) => r.map((cell, i) => (i < widths.length ? cell.padEnd(widths[i] ?? 0) : cell)).join('  '));
  const notes = listing.flatMap((a) => {
    const note = permissionNote(a.entry);
    return note === undefined ? [] : [`note: ${a.entry.name}: ${note}`];
  });
  if (notes.length > 0) lines.push('', ...notes);
  lines.push('', `config: ${registry.path} (${describeConfig(registry)})`);
  return `${lines.join('\n')}\n`;
}

/** available or not found on this machine; `on HOST` for an agent of another host. */
function statusOf(a: AgentListing): string {
  if (a.entry.host !== undefined) return `on ${a.entry.host}`;
  return a.program ? 'available' : 'not found';
}

function describeConfig(registry: LoadedRegistry): string {
  if (!registry.found) return 'not present: built-in agents only';
  const builtin = new Set(BUILTIN_AGENTS.map((b) => b.name));
  const replaced = registry.user.filter((e) => builtin.has(e.name)).map((e) => e.name);
  const n = registry.user.length;
  return `${n} agent${n === 1 ? '' : 's'}${replaced.length ? `; replaces built-in ${replaced.join(', ')}` : ''}`;
}

function listingJson(registry: LoadedRegistry, listing: readonly AgentListing[]): object {
  return {
    config: registry.path,
    found: registry.found,
    agents: listing.map((a) => ({ ...a.entry, origin: a.origin, available: a.program !== undefined, program: a.program ?? null })),
  };
}

/** Quotes an argument the way a POSIX shell would need it, so a shown command can be pasted. */
function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}
