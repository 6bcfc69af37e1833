/**
 * `tai agents [--json]`: the agent registry in effect (built-ins merged with
 * the user's agents.json) and whether each agent's program is found on PATH.
 * Exit 0 on a listing, 2 when the registry file is unusable, 64 for a bad
 * command line. The schema: docs/agents-registry.md.
 */
import { parseArgs } from 'node:util';
import { BUILTIN_AGENTS, permissionNote, RegistryError, type AgentEntry } from '../core/agents/agent-registry.js';
import { messageOf } from '../core/errors.js';
import { loadRegistry, locateAgent, type LoadedRegistry } from '../io/agents/agent-config.js';
import { USAGE_EXIT } from './command-line.js';

const USAGE = 'usage: tai agents [--json]\n';

/** One agent as `tai agents` reports it. */
export interface AgentListing {
  readonly entry: AgentEntry;
  /** built-in, or config when the user's file defines (or replaces) it. */
  readonly origin: 'built-in' | 'config';
  /** The program's full path, or undefined when it is not found. */
  readonly program: string | undefined;
}

/** Runs `tai agents ARGS`; returns the exit code. */
export async function run(args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let o;
  try {
    ({ values: o } = parseArgs({ args: [...args], options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } }));
  } catch (err) {
    process.stderr.write(`tai agents: ${messageOf(err)}\n${USAGE}`);
    return USAGE_EXIT;
  }
  if (o.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  let registry: LoadedRegistry;
  try {
    registry = await loadRegistry(undefined, env);
  } catch (err) {
    if (!(err instanceof RegistryError)) throw err;
    process.stderr.write(`tai agents: ${err.message}\n(the schema: docs/agents-registry.md)\n`);
    return 2;
  }
  const userNames = new Set(registry.user.map((e) => e.name));
  const listing: AgentListing[] = registry.entries.map((entry) => ({
    entry,
    origin: userNames.has(entry.name) ? 'config' : 'built-in',
    program: locateAgent(entry, env),
  }));
  process.stdout.write(o.json ? `${JSON.stringify(listingJson(registry, listing))}\n` : formatAgents(registry, listing));
  return 0;
}

/** The human form: a table (name, kind, available or not found, origin, command), the agents the permission policy cannot hold back, then where the config is. */
export function formatAgents(registry: LoadedRegistry, listing: readonly AgentListing[]): string {
  const rows = [
    ['NAME', 'KIND', 'STATUS', 'FROM', 'COMMAND'],
    ...listing.map((a) => [a.entry.name, a.entry.kind, a.program ? 'available' : 'not found', a.origin, a.entry.command.map(shellQuote).join(' ')]),
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
