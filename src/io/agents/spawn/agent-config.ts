/**
 * The agent registry on disk (docs/agents-registry.md, "Where the file lives"), merged over the built-in entries,
 * and whether an entry can start here (its program on PATH). It only reads, expands `~` and looks at the file
 * system; validation is src/core/agents/agent-registry.ts.
 */
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { BUILTIN_AGENTS, mergeRegistry, parseRegistry, RegistryError, type AgentEntry } from '../../../core/agents/agent-registry.js';
import { messageOf } from '../../../core/errors.js';
import { which } from '../../path-lookup.js';

/** What to tell a user whose file cannot be used. */
const MOVE_AWAY = 'fix it, or move it away to use only the built-in agents';

/** The registry file's path: `$XDG_CONFIG_HOME/tai/agents.json`, else `~/.config/tai/agents.json`. */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env['XDG_CONFIG_HOME'];
  // The XDG spec says a relative XDG_CONFIG_HOME is invalid and must be ignored.
  const base = xdg && isAbsolute(xdg) ? xdg : join(home(env), '.config');
  return join(base, 'tai', 'agents.json');
}

/** The registry in effect and where it came from. */
export interface LoadedRegistry {
  /** The file that was looked for. */
  readonly path: string;
  /** False when the file does not exist (built-ins only). */
  readonly found: boolean;
  /** The file's own entries, `~` expanded, in file order. */
  readonly user: readonly AgentEntry[];
  /** Built-ins merged with the file's entries (a user entry replaces a built-in of the same name). */
  readonly entries: readonly AgentEntry[];
}

/** Reads and validates the registry file; an absent file gives the built-ins, anything unusable throws RegistryError. */
export async function loadRegistry(path?: string, env: NodeJS.ProcessEnv = process.env): Promise<LoadedRegistry> {
  const file = path ?? configPath(env);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if (errnoCode(err) === 'ENOENT') return { path: file, found: false, user: [], entries: [...BUILTIN_AGENTS] };
    throw new RegistryError(file, '', `cannot be read (${readProblem(err)}); ${MOVE_AWAY}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    throw new RegistryError(file, '', `is not valid JSON (${messageOf(err)}); ${MOVE_AWAY}`);
  }
  const user = parseRegistry(json, file).entries.map((e) => expandEntry(e, home(env)));
  return { path: file, found: true, user, entries: mergeRegistry(BUILTIN_AGENTS, user) };
}

/** Where an entry's program is on this machine, or undefined when it cannot be started (its program is not found). */
export function locateAgent(entry: AgentEntry, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return which(entry.command[0] ?? '', env['PATH']);
}

/** Expands a leading `~` in the program and the working directory (the file is JSON, no shell does it). */
function expandEntry(entry: AgentEntry, homeDir: string): AgentEntry {
  // On a host, `~` is the host's home: the remote side reads it (src/io/remote/remote-agent.ts, hostCwd).
  if (entry.host !== undefined) return entry;
  const [program = '', ...args] = entry.command;
  const expanded: AgentEntry = { ...entry, command: [expandHome(program, homeDir), ...args] };
  return entry.cwd === undefined ? expanded : { ...expanded, cwd: expandHome(entry.cwd, homeDir) };
}

function expandHome(path: string, homeDir: string): string {
  if (path === '~') return homeDir;
  return path.startsWith('~/') ? join(homeDir, path.slice(2)) : path;
}

function home(env: NodeJS.ProcessEnv): string {
  const h = env['HOME'];
  return h && isAbsolute(h) ? h : homedir();
}

function errnoCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
}

function readProblem(err: unknown): string {
  switch (errnoCode(err)) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'it is a directory, not a file';
    case 'ENOTDIR':
      return 'a part of its path is not a directory';
    default:
      return messageOf(err);
  }
}
