/**
 * The agent registry (docs/agents-registry.md): the names an agent can be started by, each a runner kind and a
 * command. The file is read by src/io/agents/spawn/agent-config.ts; this module validates its JSON (errors name
 * the field path to fix, `agents.<name>.<field>[index]`), holds the built-in entries and parses `@name prompt`
 * mentions (docs/spec.md, "Owners and sessions").
 */
import { idleCancelProblem } from './idle-cancel.js';
import { DEFAULT_ANSWERS, PERMISSION_POLICIES, type DefaultAnswer } from './questions.js';
import { FORK_TIMEOUT_MAX, FORK_TIMEOUT_MIN } from '../policy.js';
import { BadHostError, checkHost } from '../remote/host-name.js';
import { parseSavedRules } from '../inbox/rule-json.js';
import type { RuleSpec } from '../inbox/rules.js';

/** The one list of agent kinds: what an entry can name and `tai spawn --kind` takes; each has a runner (src/io/agents/runners/table.ts). */
export const AGENT_KINDS = ['acp', 'claude', 'codex', 'cap', 'command'] as const;

/** A kind of agent. */
export type AgentKind = (typeof AGENT_KINDS)[number];

/** What an agent's permission requests get (src/core/agents/questions.ts): asked of the user (the cockpit's default), allowed or rejected. */
export const AGENT_PERMISSIONS = PERMISSION_POLICIES;

/** A permission policy. */
export type AgentPermissions = (typeof AGENT_PERMISSIONS)[number];

/** The shortest wall clock an entry may set, in seconds (the fork range of docs/spec.md, "Supervision"). */
export const AGENT_TIMEOUT_MIN_S = FORK_TIMEOUT_MIN / 1000;
/** The longest wall clock an entry may set, in seconds. */
export const AGENT_TIMEOUT_MAX_S = FORK_TIMEOUT_MAX / 1000;

/** A valid agent name: lower-case letters and digits, then also `_` and `-`. */
export const AGENT_NAME = /^[a-z0-9][a-z0-9_-]*$/;
/** Names longer than this are refused: they must fit a panel label after `@`. */
export const AGENT_NAME_MAX = 40;

/** One named agent. */
export interface AgentEntry {
  readonly name: string;
  readonly kind: AgentKind;
  /** The program, then its arguments; never run through a shell. */
  readonly command: readonly string[];
  /** Where the agent runs: an absolute path or one under `~/`. */
  readonly cwd?: string;
  /** Wall clock in seconds (AGENT_TIMEOUT_MIN_S..AGENT_TIMEOUT_MAX_S). */
  readonly timeout?: number;
  /** Seconds without an event that cancel the agent (IDLE_CANCEL_MIN_S..MAX_S); omitted: 300. */
  readonly idle_cancel?: number;
  readonly permissions?: AgentPermissions;
  /** Seconds an unanswered question waits before it gets `ask_default`. */
  readonly ask_timeout?: number;
  readonly ask_default?: DefaultAnswer;
  readonly model?: string;
  readonly description?: string;
  /** Every spawn of this agent runs in a new lane (a git worktree; docs/lanes.md), by `tai spawn @name` and the mention line. */
  readonly lane?: boolean;
  /** The host the agent runs on over ssh (docs/remote.md), as `ssh` names it; `cwd` is then a folder there. */
  readonly host?: string;
}

/** A validated registry file. */
export interface Registry {
  readonly entries: readonly AgentEntry[];
  /** Inbox rules saved by `tai ask rule add --save` (src/core/inbox/rule-json.ts). */
  readonly rules?: readonly RuleSpec[];
}

/** A registry that cannot be used; the message names the file, the field and what was found. */
export class RegistryError extends Error {
  override readonly name = 'RegistryError';
  constructor(
    /** The file (or other source) the bad value came from. */
    readonly source: string,
    /** The field path, such as `agents.reviewer.kind`; empty for the whole file. */
    readonly field: string,
    /** What is wrong, without the source and field. */
    readonly problem: string,
  ) {
    super(`${source}: ${field ? `${field} ` : ''}${problem}`);
  }
}

/** A name that the registry does not hold. */
export class UnknownAgentError extends Error {
  override readonly name = 'UnknownAgentError';
  constructor(
    readonly agent: string,
    known: readonly string[],
  ) {
    const near = nearest(agent, known);
    super(
      `no agent named "${agent}"${near ? ` (did you mean ${near}?)` : ''}; ` +
        `known: ${[...known].sort().join(', ') || 'none'}; run tai agents to list them`,
    );
  }
}

const ENTRY_FIELDS = ['kind', 'command', 'cwd', 'timeout', 'idle_cancel', 'permissions', 'ask_timeout', 'ask_default', 'model', 'description', 'lane', 'host'] as const;
const FILE_FIELDS = ['agents', 'rules'] as const;

/** Validates the parsed JSON of a registry file; `source` names the file in every error. */
export function parseRegistry(json: unknown, source: string): Registry {
  const fail = (field: string, problem: string): never => {
    throw new RegistryError(source, field, problem);
  };
  if (!isRecord(json)) {
    return fail('', `must hold a JSON object like {"agents": {"name": {...}}} (got ${describe(json)})`);
  }
  checkFields(json, '', FILE_FIELDS, fail);
  const agents = json['agents'];
  if (agents === undefined) return fail('agents', 'must be an object mapping names to agents (missing)');
  if (!isRecord(agents)) return fail('agents', `must be an object mapping names to agents (got ${describe(agents)})`);
  const entries: AgentEntry[] = [];
  for (const [name, raw] of Object.entries(agents)) entries.push(parseEntry(name, raw, fail));
  return json['rules'] === undefined ? { entries } : { entries, rules: parseSavedRules(json['rules'], fail) };
}

type Fail = (field: string, problem: string) => never;

function parseEntry(name: string, raw: unknown, fail: Fail): AgentEntry {
  if (!AGENT_NAME.test(name)) {
    return fail(`agents[${JSON.stringify(name)}]`, 'is not a valid name: use lower-case letters, digits, "_" and "-", starting with a letter or digit');
  }
  if (name.length > AGENT_NAME_MAX) {
    return fail(`agents.${name}`, `is not a valid name: at most ${AGENT_NAME_MAX} characters (got ${name.length})`);
  }
  const at = `agents.${name}`;
  if (!isRecord(raw)) return fail(at, `must be an object with at least kind and command (got ${describe(raw)})`);
  checkFields(raw, at, ENTRY_FIELDS, fail);

  const kindRule = `must be one of ${AGENT_KINDS.join(', ')}`;
  const kind = raw['kind'];
  if (kind === undefined) return fail(`${at}.kind`, `${kindRule} (missing)`);
  if (!isOneOf(kind, AGENT_KINDS)) return fail(`${at}.kind`, `${kindRule} (got ${describe(kind)})`);

  const entry: { -readonly [K in keyof AgentEntry]: AgentEntry[K] } = {
    name,
    kind,
    command: parseCommand(raw['command'], `${at}.command`, fail),
  };
  const cwd = raw['cwd'];
  if (cwd !== undefined) {
    if (typeof cwd !== 'string' || !(cwd.startsWith('/') || cwd === '~' || cwd.startsWith('~/'))) {
      return fail(`${at}.cwd`, `must be an absolute path or one starting with ~/ (got ${describe(cwd)})`);
    }
    entry.cwd = cwd;
  }
  const timeout = raw['timeout'];
  if (timeout !== undefined) {
    if (typeof timeout !== 'number' || !Number.isInteger(timeout) || timeout < AGENT_TIMEOUT_MIN_S || timeout > AGENT_TIMEOUT_MAX_S) {
      return fail(`${at}.timeout`, `must be a whole number of seconds from ${AGENT_TIMEOUT_MIN_S} to ${AGENT_TIMEOUT_MAX_S} (got ${describe(timeout)})`);
    }
    entry.timeout = timeout;
  }
  const idleCancel = raw['idle_cancel'];
  if (idleCancel !== undefined) {
    const bad = idleCancelProblem(idleCancel);
    if (bad !== undefined) return fail(`${at}.idle_cancel`, `${bad} (got ${describe(idleCancel)})`);
    entry.idle_cancel = idleCancel as number;
  }
  const permissions = raw['permissions'];
  if (permissions !== undefined) {
    if (!isOneOf(permissions, AGENT_PERMISSIONS)) {
      return fail(`${at}.permissions`, `must be one of ${AGENT_PERMISSIONS.join(', ')} (got ${describe(permissions)})`);
    }
    entry.permissions = permissions;
  }
  const lane = raw['lane'];
  if (lane !== undefined) {
    if (typeof lane !== 'boolean') return fail(`${at}.lane`, `must be true or false (got ${describe(lane)})`);
    entry.lane = lane;
  }
  const host = raw['host'];
  if (host !== undefined) {
    const bad = typeof host === 'string' ? hostNameProblem(host) : 'must be a host name as ssh takes it, like "build" or "me@build.example"';
    if (bad !== undefined) return fail(`${at}.host`, `${bad} (got ${describe(host)})`);
    entry.host = host as string;
  }
  const askTimeout = raw['ask_timeout'];
  if (askTimeout !== undefined) {
    if (typeof askTimeout !== 'number' || !Number.isInteger(askTimeout) || askTimeout < 1) {
      return fail(`${at}.ask_timeout`, `must be a whole number of seconds, at least 1 (got ${describe(askTimeout)})`);
    }
    entry.ask_timeout = askTimeout;
  }
  const askDefault = raw['ask_default'];
  if (askDefault !== undefined) {
    if (!isOneOf(askDefault, DEFAULT_ANSWERS)) return fail(`${at}.ask_default`, `must be one of ${DEFAULT_ANSWERS.join(', ')} (got ${describe(askDefault)})`);
    entry.ask_default = askDefault;
  }
  for (const field of ['model', 'description'] as const) {
    const value = raw[field];
    if (value === undefined) continue;
    if (typeof value !== 'string' || value.trim() === '') return fail(`${at}.${field}`, `must be a non-empty string (got ${describe(value)})`);
    if (/[\r\n]/.test(value)) return fail(`${at}.${field}`, 'must be one line');
    entry[field] = value;
  }
  return entry;
}

function parseCommand(raw: unknown, at: string, fail: Fail): readonly string[] {
  const rule = 'must be a list of strings, the program first, like ["gemini", "--acp"]';
  if (raw === undefined) return fail(at, `${rule} (missing)`);
  if (!Array.isArray(raw) || raw.length === 0) return fail(at, `${rule} (got ${describe(raw)})`);
  const command: string[] = [];
  for (const [i, arg] of (raw as unknown[]).entries()) {
    if (typeof arg !== 'string') return fail(`${at}[${i}]`, `must be a string (got ${describe(arg)})`);
    if (arg.includes('\0')) return fail(`${at}[${i}]`, 'must not contain a NUL character');
    command.push(arg);
  }
  const program = command[0] ?? '';
  if (program.trim() === '') return fail(`${at}[0]`, `must name a program (got ${describe(program)})`);
  return command;
}

/** Rejects a field that the schema does not know, suggesting the nearest known one. */
function checkFields(obj: Record<string, unknown>, at: string, known: readonly string[], fail: Fail): void {
  for (const key of Object.keys(obj)) {
    if (known.includes(key)) continue;
    const near = nearest(key, known);
    const hint = near ? `did you mean ${near}?` : `known fields: ${known.join(', ')}`;
    fail(at ? `${at}.${key}` : key, `is not a known field (${hint})`);
  }
}

/** The built-in entries: agents that speak ACP today, and Claude Code and Codex in their own JSON streams. */
export const BUILTIN_AGENTS: readonly AgentEntry[] = [
  { name: 'gemini', kind: 'acp', command: ['gemini', '--acp'], description: 'Gemini CLI over ACP' },
  { name: 'opencode', kind: 'acp', command: ['opencode', 'acp'], description: 'opencode over ACP' },
  { name: 'goose', kind: 'acp', command: ['goose', 'acp'], description: 'goose over ACP' },
  { name: 'qwen', kind: 'acp', command: ['qwen', '--acp'], description: 'Qwen Code over ACP' },
  {
    name: 'claude-acp',
    kind: 'acp',
    command: ['npx', '-y', '@agentclientprotocol/claude-agent-acp'],
    description: 'Claude Code through its ACP adapter (fetched by npx; needs Node 22)',
  },
  {
    name: 'codex-acp',
    kind: 'acp',
    command: ['npx', '-y', '@agentclientprotocol/codex-acp'],
    description: 'Codex through its ACP adapter (fetched by npx)',
  },
  {
    name: 'claude',
    kind: 'claude',
    command: ['claude', '-p', '--output-format', 'stream-json', '--verbose', '--input-format', 'stream-json'],
    description: 'Claude Code, stream-json',
  },
  // Outside a git repository codex exec refuses to run without --skip-git-repo-check.
  { name: 'codex', kind: 'codex', command: ['codex', 'exec', '--json', '--skip-git-repo-check'], description: 'Codex, exec --json' },
];

/**
 * ACP agents that run tools without ever asking, so tai's `reject` policy cannot stop them; keyed by a word of
 * the command (the versions seen: docs/agents.md, "The real agents, tested"), and `tai agents` says so.
 */
const NEVER_ASK: readonly (readonly [RegExp, string])[] = [
  [/(^|\/)opencode$/, 'opencode runs its tools without asking (default config): the reject policy does not stop it; set "permission" in its opencode.json'],
  [/claude-agent-acp/, 'claude-agent-acp starts in mode auto and runs commands without asking: the reject policy does not stop it'],
  [/codex-acp/, 'codex-acp never asks before writing: its sandbox_mode decides, not the reject policy'],
];

/** Why the permission policy does not hold an entry's agent back, or undefined when its requests are what the policy answers. */
export function permissionNote(entry: AgentEntry): string | undefined {
  if (entry.kind !== 'acp') return undefined;
  return NEVER_ASK.find(([word]) => entry.command.some((arg) => word.test(arg)))?.[1];
}

/** The registry in effect: built-ins in their order (a user entry of the same name replaces one whole), then the user's new names. */
export function mergeRegistry(builtins: readonly AgentEntry[], user: readonly AgentEntry[]): AgentEntry[] {
  const byName = new Map(user.map((e) => [e.name, e]));
  const merged = builtins.map((b) => byName.get(b.name) ?? b);
  const builtinNames = new Set(builtins.map((b) => b.name));
  for (const u of user) if (!builtinNames.has(u.name)) merged.push(u);
  return merged;
}

/** The entry named `name`; throws UnknownAgentError (with the known names) when there is none. */
export function findAgent(entries: readonly AgentEntry[], name: string): AgentEntry {
  const entry = entries.find((e) => e.name === name);
  if (!entry) throw new UnknownAgentError(name, entries.map((e) => e.name));
  return entry;
}

/** A parsed `@name prompt` line. */
export interface Mention {
  readonly name: string;
  /** The rest of the line, trimmed; empty when only the name was typed. */
  readonly prompt: string;
}

const MENTION = /^\s*@([a-z0-9][a-z0-9_-]*)[:,]?(?:\s+([\s\S]*))?$/;

/** Parses `@name prompt` (a `:` or `,` may follow the name); null when the text is not a mention. */
export function resolveMention(text: string): Mention | null {
  const m = MENTION.exec(text);
  const name = m?.[1];
  if (!m || name === undefined || name.length > AGENT_NAME_MAX) return null;
  return { name, prompt: (m[2] ?? '').trim() };
}

/** The names that start with `prefix` (a leading `@` is ignored), sorted. */
export function completeName(prefix: string, names: readonly string[]): string[] {
  const p = prefix.startsWith('@') ? prefix.slice(1) : prefix;
  return [...new Set(names.filter((n) => n.startsWith(p)))].sort();
}

/** The longest prefix that all `words` share: what Tab can fill in when several names match. */
export function commonPrefix(words: readonly string[]): string {
  const [first, ...rest] = words;
  if (first === undefined) return '';
  let end = first.length;
  for (const w of rest) {
    let i = 0;
    while (i < end && i < w.length && w[i] === first[i]) i++;
    end = i;
  }
  return first.slice(0, end);
}

/** Why `host` cannot be an entry's host (it would reach ssh as an option, or hold what no host name has), or undefined. */
function hostNameProblem(host: string): string | undefined {
  try {
    checkHost(host);
    return undefined;
  } catch (err) {
    if (err instanceof BadHostError) return `is not a host name ssh can be given: ${err.message}`;
    throw err;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isOneOf<T extends string>(value: unknown, options: readonly T[]): value is T {
  return typeof value === 'string' && (options as readonly string[]).includes(value);
}

/** A found value as the error shows it: strings and small values as JSON, big ones by their type. */
function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return value.length === 0 ? '[]' : 'a list';
  if (isRecord(value)) return 'an object';
  const json = JSON.stringify(value);
  return json.length > 60 ? `${json.slice(0, 57)}..."` : json;
}

/** The known word nearest to `word` when it is within two edits (the first of a tie). */
function nearest(word: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const k of known) {
    const d = editDistance(word.toLowerCase(), k);
    if (d < bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length] ?? 0;
}
