/**
 * A registry entry turned into the one `spawn` Command (docs/agents-registry.md): the single
 * conversion that `tai spawn @name` and the cockpit's `@name prompt` line
 * both use, so an agent started by name is started the same way from either
 * door. Pure: the caller resolves the working directory.
 */
import type { AgentEntry } from './agent-registry.js';
import type { CommandOf } from '../protocol/commands.js';
import type { PermissionPolicy } from './questions.js';

/** What the caller adds to an entry; each field overrides the entry's own. */
export interface EntrySpawnOptions {
  /** The task; omitted or empty, the agent gets none. */
  readonly prompt?: string;
  /** An absolute directory; the entry's `cwd` (already `~`-expanded) wins over it unless `cwdOverride`. */
  readonly cwd: string;
  /** True when `cwd` was asked for explicitly (`--cwd`) and beats the entry's. */
  readonly cwdOverride?: boolean;
  readonly kind?: string;
  readonly label?: string;
  /** Wall clock in seconds; defaults to the entry's. */
  readonly timeout?: number;
  /** Seconds of silence that cancel the agent; defaults to the entry's `idle_cancel`. */
  readonly idle_cancel?: number;
  readonly retries?: number;
  /** Accept ACP permission requests even when the entry rejects them. */
  readonly allow?: boolean;
  /** The policy when neither `allow` nor the entry names one (the cockpit's `@name` line and a terminal's `tai spawn`: ask). */
  readonly permissions?: PermissionPolicy;
  /** Keep the agent's session for later turns, under sessionKey (opt-in: plain spawns never continue one). */
  readonly session?: boolean;
  /** Run in a new lane (docs/lanes.md): its name, or '' for one from the label; the entry's `lane: true` asks for '' too. */
  readonly lane?: string;
  /** Run on this host over ssh (docs/remote.md); beats the entry's `host`. On a host, `cwd` is the entry's or the override, else the login folder. */
  readonly host?: string;
}

/** A registry entry's command, with `--model M` added for the kinds whose CLIs take it (claude, codex). */
export function withModel(entry: AgentEntry): string[] {
  const argv = [...entry.command];
  if (entry.model && (entry.kind === 'claude' || entry.kind === 'codex') && !argv.includes('--model')) argv.push('--model', entry.model);
  return argv;
}

/** The spawn Command that starts `entry`, labelled `@name` unless a label is given. */
export function entrySpawnCommand(entry: AgentEntry, options: EntrySpawnOptions): CommandOf<'spawn'> {
  const label = options.label ?? `@${entry.name}`;
  const wall = options.timeout ?? entry.timeout;
  const idle = options.idle_cancel ?? entry.idle_cancel;
  const host = options.host ?? entry.host;
  // On a host, the caller's folder is a local one: the entry's folder there, else the login folder.
  const cwd = options.cwdOverride ? options.cwd : host === undefined ? (entry.cwd ?? options.cwd) : entry.cwd;
  const lane = options.lane ?? (entry.lane ? '' : undefined);
  return {
    cmd: 'spawn',
    kind: options.kind ?? entry.kind,
    agent: entry.name,
    argv: withModel(entry),
    label,
    ...(options.prompt === undefined || options.prompt === '' ? {} : { prompt: options.prompt }),
    ...(wall === undefined ? {} : { timeout: wall }),
    ...(idle === undefined ? {} : { idle_cancel: idle }),
    ...(cwd === undefined ? {} : { cwd }),
    ...(host === undefined ? {} : { host }),
    ...(options.retries === undefined ? {} : { retries: options.retries }),
    ...(options.allow || entry.permissions === 'allow' ? { allow: true } : {}),
    ...policyFields(entry, options),
    // A lane runs in a new worktree: a kept session belongs to another folder, so a lane turn never continues one.
    ...(options.session && lane === undefined ? { session: sessionKey(entry, host === undefined ? (cwd ?? '') : `${host}:${cwd ?? '~'}`) } : {}),
    ...(lane === undefined ? {} : { lane }),
  };
}

/** The permission fields of the command: the entry's policy (else the caller's default) and its ask timeout. */
function policyFields(entry: AgentEntry, options: EntrySpawnOptions): Partial<CommandOf<'spawn'>> {
  const policy = options.allow ? 'allow' : (entry.permissions ?? options.permissions);
  return {
    ...(policy === undefined || policy === 'allow' ? {} : { permissions: policy }),
    ...(entry.ask_timeout === undefined ? {} : { ask_timeout: entry.ask_timeout }),
    ...(entry.ask_default === undefined ? {} : { ask_default: entry.ask_default }),
  };
}

/**
 * An agent's session key (docs/spec.md, "Owners and sessions"): later turns to the same agent, model and `dir`
 * (the spawn's cwd) share one session while it lives.
 */
export function sessionKey(entry: AgentEntry, dir: string): string {
  return JSON.stringify([entry.name, entry.model ?? '', dir]);
}

/** Programs that run the script after them: a label names the script instead (`acp claude-agent-acp`, not `acp /path/to/node`). */
const INTERPRETERS: ReadonlySet<string> = new Set(['node', 'nodejs', 'bun', 'deno', 'python', 'python3', 'npx']);

/**
 * A spawn's default label: the kind and the program's (or an interpreter's script's, or a `dist/index.js`'s
 * package folder's) name, the kind alone when the program is named for it (`claude`, not `claude claude`).
 */
export function defaultLabel(kind: string, argv: readonly string[]): string {
  const base = (path: string): string => path.split('/').filter(Boolean).at(-1) ?? path;
  let program = base(argv[0] ?? '');
  if (INTERPRETERS.has(program.replace(/[\d.]+$/, ''))) {
    const script = argv.slice(1).find((arg) => !arg.startsWith('-'));
    if (script !== undefined) {
      const parts = script.split('/').filter(Boolean);
      const file = parts.at(-1) ?? script;
      const folder = parts.at(-2);
      // .../claude-agent-acp/dist/index.js names its package, not `index.js`.
      program = /^(index|main|cli)\.[cm]?js$/.test(file) && folder === 'dist' && parts.length >= 3 ? (parts.at(-3) ?? file) : file;
    }
  }
  return program === '' || program === kind ? kind : `${kind} ${program}`;
}
