/**
 * The folder `src/cli/spawn/`: starting a supervised agent, and `tai cancel`. This file: `tai spawn`, over the socket
 * inside a cockpit (its panel appears there) or in this process outside one; its options, exit codes and output:
 * docs/agents.md, "Starting one". It reads the line into one request, carried out by spawn-via-cockpit.ts or
 * spawn-in-process.ts, its result printed by spawn-result.ts, its live status line drawn by spawn-status.ts.
 */
import { entrySpawnCommand, withModel } from '../../core/agents/agent-spawn.js';
import { resolve } from 'node:path';
import type { CommandOf } from '../../core/protocol/commands.js';
import { AGENT_KINDS, findAgent, RegistryError, UnknownAgentError, type AgentEntry } from '../../core/agents/agent-registry.js';
import { IDLE_CANCEL_MAX_S, IDLE_CANCEL_MIN_S, idleCancelProblem } from '../../core/agents/idle-cancel.js';
import { ORCH_IDLE_KILL } from '../../core/policy.js';
import { loadRegistry } from '../../io/agents/spawn/agent-config.js';
import { readCommandLine, usageError, USAGE_EXIT, type CommandLine } from '../command-line.js';
import { DEFAULT_ANSWERS, PERMISSION_POLICIES, type DefaultAnswer, type PermissionPolicy } from '../../core/agents/questions.js';
import { CliOutput, field } from '../output.js';
import { processIo, type CliIo } from '../cli-io.js';
import { inProcess } from './spawn-in-process.js';
import { viaCockpit } from './spawn-via-cockpit.js';
import type { QueuedSpawn, ResultShape } from './spawn-result.js';
import { takeLaneFlag } from '../../core/lanes/lane-args.js';
import { laneRequestProblem } from './spawn-lane-check.js';
import { LaneError } from '../../io/lanes/lanes.js';
import { askWithoutCockpit, laneProblem, policyNote, promptProblem, rangeProblem } from './spawn-checks.js';
import { hostRefusal } from '../../io/remote/remote-spawn.js';
import { hostLaneSpawn } from '../../io/remote/remote-lanes.js';

const USAGE =
  `usage: tai spawn [--kind ${AGENT_KINDS.join('|')}] [--label L] [--timeout S] [--idle-cancel S] [--cwd DIR]\n` +
  '                 [--prompt TEXT | stdin] [--retries N] [--permissions ask|allow|reject] [--allow]\n' +
  '                 [--ask-timeout S --ask-default allow|reject] [--stdin] [--detach] [--json | --raw] [--socket PATH]\n' +
  '                 [--lane [NAME]] [--queue] [--host NAME [--host-grace S]] [--resume SESSION_ID] -- ARGV...\n' +
  '       tai spawn [options] @NAME [PROMPT...]     an agent of the registry (tai agents)\n' +
  "--resume continues the agent's own session of that id (kinds claude, codex and acp; docs/restore.md);\n" +
  '--host runs the agent (any kind, or @NAME) on another machine over ssh, under tai\'s reaper there (docs/remote.md);\n' +
  '--host-grace S: with the link lost, the host stops the agent itself after S seconds (default 600, or TAI_REMOTE_GRACE);\n' +
  '--lane runs the agent in a git worktree of its own on a new branch tai/NAME (docs/lanes.md);\n' +
  '--queue waits for a free slot instead of being refused when every slot is taken.\n' +
  `--idle-cancel S cancels the agent after S seconds without an event (${IDLE_CANCEL_MIN_S}..${IDLE_CANCEL_MAX_S}, default ${ORCH_IDLE_KILL / 1000}).\n` +
  'The result is printed sanitized (only colours, newline and tab survive; colours only to a terminal);\n' +
  '--raw prints its exact bytes (never to a terminal you care about), --json the result as escaped JSON.\n';

/** Where the CLI reads and writes (src/cli/cli-io.ts; kept here for importers). */
export { processIo, type CliIo } from '../cli-io.js';
/** How results are printed (src/cli/spawn/spawn-result.ts; kept here for importers). */
export { printResult, printText, type ResultShape } from './spawn-result.js';
/** Seconds one poll waits on the socket (src/cli/spawn/spawn-via-cockpit.ts). */
export { POLL_WAIT_S } from './spawn-via-cockpit.js';

const SPEC = {
  name: 'spawn',
  usage: USAGE,
  options: {
    queue: { type: 'boolean' },
    'in-lane': { type: 'string' },
    kind: { type: 'string' },
    label: { type: 'string' },
    timeout: { type: 'string' },
    'idle-cancel': { type: 'string' },
    cwd: { type: 'string' },
    prompt: { type: 'string' },
    retries: { type: 'string' },
    allow: { type: 'boolean' },
    permissions: { type: 'string' },
    'ask-timeout': { type: 'string' },
    'ask-default': { type: 'string' },
    stdin: { type: 'boolean' },
    detach: { type: 'boolean' },
    json: { type: 'boolean' },
    raw: { type: 'boolean' },
    socket: { type: 'string' },
    host: { type: 'string' },
    'host-grace': { type: 'string' },
    resume: { type: 'string' },
  },
} as const;

/** The option values of a spawn command line. */
type SpawnValues = CommandLine<typeof SPEC.options>['values'];

/** Runs `tai spawn ARGS`; returns the exit code. */
export async function run(allArgs: readonly string[], io: CliIo = processIo): Promise<number> {
  const out = new CliOutput(io);
  const { args, lane: laneFlag } = takeLaneFlag(allArgs);
  const parsed = readCommandLine(SPEC, args, out);
  if (typeof parsed === 'number') return parsed;
  const badLane = laneProblem(allArgs);
  if (badLane !== undefined) return usageError(SPEC, out, badLane);
  const o = parsed.values;
  if (o.json && o.raw) return usageError(SPEC, out, '--json and --raw are two forms of the result: give one');
  if (o.kind !== undefined && !isOneOf(o.kind, AGENT_KINDS)) return usageError(SPEC, out, `--kind takes one of ${AGENT_KINDS.join(', ')}, got '${o.kind}'`);
  const shape: ResultShape = o.json ? 'json' : o.raw ? 'raw' : 'text';
  const agent = await namedAgent(parsed.positionals, io, out);
  if (typeof agent === 'number') return agent;
  const { named, words, argv } = agent;
  if (argv.length === 0) return usageError(SPEC, out, "nothing to run: give the agent's command after --, or @NAME");
  // An agent on another host (--host, or the entry's `host`): the host checked before any panel opens.
  const host = o.host ?? named?.host;
  const hostBad = await hostProblem(o, host, io, out);
  if (hostBad !== undefined) return hostBad;
  const limits = readLimits(o, out);
  if (typeof limits === 'number') return limits;
  const socketGiven = o.socket ?? io.env['TAI_PLEXER_SOCKET'];
  // A person at a terminal, with a cockpit to show the question: ask (docs/agents.md, "Permissions"); a script: reject.
  const policy = limits.permissions ?? (o.allow ? undefined : socketGiven && io.stdinIsTerminal ? 'ask' : undefined);
  const prompt = o.prompt ?? (words.length > 0 ? words.join(' ') : await io.readStdin());
  const noPrompt = promptProblem(prompt, o.prompt !== undefined, named?.name);
  if (noPrompt !== undefined) return usageError(SPEC, out, noPrompt);
  // Absolute, from where tai spawn was run: a cockpit's own directory may be elsewhere; on a host, the host's folder as given.
  const cwd = resolve(o.cwd ?? '.');
  const made = spawnCommand(o, { named, argv, prompt, cwd, host, policy, laneFlag, limits });
  const badResume = o.resume === undefined ? undefined : resumeProblem(made.kind, o.resume);
  if (badResume !== undefined) return usageError(SPEC, out, badResume);
  const grace = o['host-grace'];
  const request = await laneReady(
    {
      ...made,
      ...(o.queue ? { queue: true } : {}),
      ...(o['in-lane'] === undefined ? {} : { in_lane: o['in-lane'] }),
      ...(grace === undefined ? {} : { host_grace: Number(grace) }),
      ...(o.resume === undefined ? {} : { resume: o.resume }),
    } as QueuedSpawn,
    o.queue === true,
    cwd,
    io,
    out,
  );
  if (typeof request === 'number') return request;
  return start(request, o, shape, io, out);
}

/** For `@NAME [PROMPT...]`: the registry's entry, its command and the prompt's words; else the command as given. An exit code when NAME is unknown. */
async function namedAgent(positionals: string[], io: CliIo, out: CliOutput): Promise<{ named?: AgentEntry; words: string[]; argv: string[] } | number> {
  if (!positionals[0]?.startsWith('@')) return { words: [], argv: positionals };
  let named: AgentEntry;
  try {
    named = findAgent((await loadRegistry(undefined, io.env)).entries, positionals[0].slice(1));
  } catch (err) {
    if (!(err instanceof RegistryError || err instanceof UnknownAgentError)) throw err;
    out.warn(`tai spawn: ${field(err.message)}\n`);
    return USAGE_EXIT;
  }
  return { named, words: positionals.slice(1), argv: withModel(named) };
}

/** The exit code when --host-grace is wrong or the host refuses (unknown, unreachable), before any panel opens. */
async function hostProblem(o: SpawnValues, host: string | undefined, io: CliIo, out: CliOutput): Promise<number | undefined> {
  const grace = o['host-grace'];
  if (grace !== undefined && host === undefined) return usageError(SPEC, out, '--host-grace goes with --host NAME (docs/remote.md)');
  if (grace !== undefined && !/^[1-9]\d{0,6}$/.test(grace)) return usageError(SPEC, out, `--host-grace takes a whole number of seconds above 0, got '${grace}'`);
  if (host === undefined) return undefined;
  const refused = await hostRefusal(host, io.env, !(o.socket ?? io.env['TAI_PLEXER_SOCKET']));
  if (refused === undefined) return undefined;
  out.warn(`tai spawn: ${field(refused.message)}\n`);
  return refused.exitCode;
}

/** The limits and answers a spawn line sets, checked. */
interface SpawnLimits {
  readonly timeout?: number;
  readonly retries?: number;
  readonly idleCancel?: number;
  readonly permissions?: PermissionPolicy;
  readonly askTimeout?: number;
  readonly askDefault?: DefaultAnswer;
}

/** The limits read from the line, or the exit code after saying which is wrong. */
function readLimits(o: SpawnValues, out: CliOutput): SpawnLimits | number {
  const timeout = o.timeout === undefined ? undefined : Number(o.timeout);
  const retries = o.retries === undefined ? undefined : Number(o.retries);
  if (timeout !== undefined && !(Number.isFinite(timeout) && timeout > 0)) return usageError(SPEC, out, `--timeout takes a number of seconds above 0, got '${o.timeout}'`);
  const idleCancel = o['idle-cancel'] === undefined ? undefined : /^\d+$/.test(o['idle-cancel'].trim()) ? Number(o['idle-cancel']) : NaN;
  const idleBad = idleCancel === undefined ? undefined : idleCancelProblem(idleCancel);
  if (idleBad !== undefined) return usageError(SPEC, out, `--idle-cancel ${idleBad}, got '${o['idle-cancel']}'`);
  if (retries !== undefined && !(Number.isInteger(retries) && retries >= 0)) return usageError(SPEC, out, `--retries takes a whole number, 0 or more, got '${o.retries}'`);
  const outOfRange = rangeProblem(timeout, o.timeout, retries);
  if (outOfRange !== undefined) return usageError(SPEC, out, outOfRange);
  const permissions = o.permissions;
  if (permissions !== undefined && !isOneOf(permissions, PERMISSION_POLICIES)) {
    out.warn(`tai spawn: --permissions takes one of ${PERMISSION_POLICIES.join(', ')}\n${USAGE}`);
    return USAGE_EXIT;
  }
  const askTimeout = o['ask-timeout'] === undefined ? undefined : Number(o['ask-timeout']);
  const askDefault = o['ask-default'];
  if ((askTimeout !== undefined && !(Number.isFinite(askTimeout) && askTimeout > 0)) || (askDefault !== undefined && !isOneOf(askDefault, DEFAULT_ANSWERS))) {
    out.warn(`tai spawn: --ask-timeout takes seconds and --ask-default one of ${DEFAULT_ANSWERS.join(', ')}\n${USAGE}`);
    return USAGE_EXIT;
  }
  return { timeout, retries, idleCancel, permissions, askTimeout, askDefault };
}

/** What the spawn command is made of, beyond the line's own values. */
interface SpawnParts {
  readonly named: AgentEntry | undefined;
  readonly argv: string[];
  readonly prompt: string | undefined;
  readonly cwd: string;
  readonly host: string | undefined;
  readonly policy: PermissionPolicy | undefined;
  readonly laneFlag: string | undefined;
  readonly limits: SpawnLimits;
}

/** The spawn command: an agent by name started as the @mention line starts it, else the command given. */
function spawnCommand(o: SpawnValues, parts: SpawnParts): CommandOf<'spawn'> {
  const { named, argv, prompt, cwd, host, policy, laneFlag, limits } = parts;
  const { timeout, idleCancel, retries, askTimeout, askDefault, permissions } = limits;
  const where = host === undefined ? { cwd } : { ...(o.cwd === undefined ? {} : { cwd: o.cwd }), host };
  const asked = {
    ...(o.kind === undefined ? {} : { kind: o.kind }),
    ...(o.label === undefined ? {} : { label: o.label }),
    ...(prompt === undefined || prompt === '' ? {} : { prompt }),
    ...(timeout === undefined ? {} : { timeout }),
    ...(idleCancel === undefined ? {} : { idle_cancel: idleCancel }),
    ...(retries === undefined ? {} : { retries }),
    ...(o.allow ? { allow: true } : {}),
    ...(askTimeout === undefined ? {} : { ask_timeout: askTimeout }),
    ...(askDefault === undefined ? {} : { ask_default: askDefault }),
    ...(o.stdin ? { stdin: true } : {}),
  };
  // An agent by name is started exactly as the cockpit's @mention line starts it: a turn of its session.
  const built: CommandOf<'spawn'> = named
    ? entrySpawnCommand(named, { ...asked, cwd, cwdOverride: o.cwd !== undefined, ...(o.host === undefined ? {} : { host: o.host }), session: true, ...(policy === undefined ? {} : { permissions: policy }), ...(laneFlag === undefined ? {} : { lane: laneFlag }) })
    : { cmd: 'spawn', kind: o.kind ?? 'command', argv, ...asked, ...(policy === undefined ? {} : { permissions: policy }), ...where, ...(laneFlag === undefined ? {} : { lane: laneFlag }) };
  // An explicit --permissions beats the entry's own policy.
  return permissions === undefined || !named ? built : { ...built, permissions };
}

/** The request with its lane ready: a lane on a host made there now, a lane here checked; else the exit code. */
async function laneReady(request: QueuedSpawn, queue: boolean, cwd: string, io: CliIo, out: CliOutput): Promise<QueuedSpawn | number> {
  if (request.lane !== undefined && request.host !== undefined) {
    // A lane on a host: made there now, through its connection; the agent runs in its worktree (docs/remote.md).
    try {
      const there = await hostLaneSpawn(request, Date.now(), io.env);
      out.warn(`tai spawn: lane ${there.lane.name} on ${there.lane.host ?? ''}: worktree ${field(there.lane.worktree)} on branch ${there.lane.branch}\n`);
      return { ...there.request, ...(queue ? { queue: true } : {}) };
    } catch (err) {
      if (!(err instanceof LaneError)) throw err;
      out.warn(`tai spawn: ${field(err.message)}\n`);
      return USAGE_EXIT;
    }
  }
  const laneBad = request.lane === undefined && request.in_lane === undefined ? undefined : await laneRequestProblem(request, request.cwd ?? cwd, io.env);
  if (laneBad !== undefined) return usageError(SPEC, out, laneBad);
  return request;
}

/** Carries the request out: over the cockpit's socket, or supervised here. */
function start(request: QueuedSpawn, o: SpawnValues, shape: ResultShape, io: CliIo, out: CliOutput): Promise<number> | number {
  const socket = o.socket ?? io.env['TAI_PLEXER_SOCKET'];
  const note = policyNote(request, Boolean(socket), io.stdinIsTerminal === true) ?? askWithoutCockpit(request, Boolean(socket));
  if (note !== undefined) out.warn(`tai spawn: ${note}\n`);
  if (socket) return viaCockpit(socket, request, Boolean(o.detach), shape, io, out);
  if (o.detach) {
    out.warn('tai spawn: --detach needs a cockpit to supervise the agent (run it inside `tai`, or pass --socket PATH)\n');
    return USAGE_EXIT;
  }
  return inProcess(request.permissions === 'ask' && request.kind !== 'command' ? { ...request, permissions: 'reject' } : request, shape, io, out);
}

/** A registry entry's command with its `--model` (src/core/agents/agent-spawn.ts; kept for importers). */
export { withModel };

/** The kinds whose agents keep a session of their own that `--resume` can continue. */
const RESUMABLE_KINDS: readonly string[] = ['claude', 'codex', 'acp'];

/** Why `--resume ID` cannot go with an agent of `kind`, if it cannot. */
function resumeProblem(kind: string, id: string): string | undefined {
  if (id.trim() === '') return '--resume takes the session id the agent reported, not an empty one';
  if (!RESUMABLE_KINDS.includes(kind)) return `--resume continues an agent's own session: kinds ${RESUMABLE_KINDS.join(', ')} have one, '${kind}' has none`;
  return undefined;
}

function isOneOf<T extends string>(value: string, allowed: readonly T[]): value is T {
  return (allowed as readonly string[]).includes(value);
}
