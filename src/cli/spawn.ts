/**
 * `tai spawn [--kind K] [--label L] [--timeout S] [--cwd DIR] [--prompt TEXT | stdin]
 * [--retries N] [--allow] [--detach] [--json] -- ARGV...` (or `@NAME [PROMPT...]`
 * for an agent of the registry, docs/agents-registry.md): starts a supervised
 * agent. Inside a cockpit (TAI_PLEXER_SOCKET, or --socket) it asks the cockpit
 * over the socket, so the panel appears there, then long-polls the result;
 * outside one it supervises the agent in this process on a board with drawing
 * off (the same clocks, no panel). Without --detach it prints the result (the
 * claim-check view when long) and exits 0 done, 1 failed, 124 timeout,
 * 130 cancelled, 75 refused at the cap (counted over every tai process of the
 * user, src/io/storage/agent-slots.ts); 74 when the state database could not
 * be used or the result not stored in it (the whole result is then in the file
 * the message names, or on stdout); 64 for a bad command line, 2 when the
 * named cockpit cannot be reached. Ctrl-C asks the agent to stop softly and
 * still prints its partial result; a second Ctrl-C stops waiting. Outside a
 * cockpit, an agent held for a lost network (docs/outages.md) is told on
 * stderr: why it is held, each stage with its next probe time, its restart.
 * What it prints goes through src/cli/output.ts: the result sanitized (on a
 * terminal and on a pipe; SGR only on a terminal), its exact bytes with
 * --raw; --json is lossless and escaped; reasons and labels one line each.
 * An agent by name is a turn of its session (src/core/agents/agent-spawn.ts,
 * sessionKey): inside a cockpit, an ACP agent whose last turn ended well
 * continues in the same process and conversation; `--kind`/`-- ARGV` spawns
 * never do.
 */
import { entrySpawnCommand, withModel } from '../core/agents/agent-spawn.js';
import { resolve } from 'node:path';
import type { AgentResult, SpawnResult } from '../core/agents/agent-service.js';
import type { CommandOf } from '../core/protocol/commands.js';
import { AGENT_KINDS, findAgent, RegistryError, UnknownAgentError, type AgentEntry } from '../core/agents/agent-registry.js';
import { AgentsFullError, RequestError } from '../core/errors.js';
import { CANNOT_START_EXIT, CannotStartError } from '../io/agents/startable.js';
import { isLive } from '../core/panel/panel-state.js';
import { IDLE_CANCEL_MAX_S, IDLE_CANCEL_MIN_S, idleCancelProblem } from '../core/agents/idle-cancel.js';
import { ORCH_IDLE_KILL } from '../core/policy.js';
import { createBoard } from '../../store/board.js';
import { EXIT_CODES, EXIT_REFUSED, EXIT_STORAGE } from '../io/agents/agent-results.js';
import { openAgentService, type OpenedAgentService } from '../io/agents/open-agent-service.js';
import { StateDbError } from '../io/storage/state-db.js';
import { loadRegistry } from '../io/agents/agent-config.js';
import { startBoardClock } from '../io/cockpit/board-clock.js';
import { call, describeCallError } from '../io/socket/control-client.js';
import { progressLine } from './outage.js';
import { readCommandLine, usageError, USAGE_EXIT } from './command-line.js';
import { DEFAULT_ANSWERS, PERMISSION_POLICIES } from '../core/agents/questions.js';
import { CliOutput, field, processSinks, type CliSinks } from './output.js';
import { takeLaneFlag } from '../core/lanes/lane-args.js';
import { LaneError, repoOf } from '../io/lanes/lanes.js';
import { spawnQueued } from './spawn-queued.js';
import { cockpitSampler, LastText, startLiveStatus, type LiveStatus } from './spawn-status.js';

const USAGE =
  `usage: tai spawn [--kind ${AGENT_KINDS.join('|')}] [--label L] [--timeout S] [--idle-cancel S] [--cwd DIR]\n` +
  '                 [--prompt TEXT | stdin] [--retries N] [--permissions ask|allow|reject] [--allow]\n' +
  '                 [--ask-timeout S --ask-default allow|reject] [--stdin] [--detach] [--json | --raw] [--socket PATH]\n' +
  '                 [--lane [NAME]] [--queue] -- ARGV...\n' +
  '--lane runs the agent in a git worktree of its own on a new branch tai/NAME (docs/lanes.md);\n' +
  '--queue waits for a free slot instead of being refused when every slot is taken.\n' +
  `--idle-cancel S cancels the agent after S seconds without an event (${IDLE_CANCEL_MIN_S}..${IDLE_CANCEL_MAX_S}, default ${ORCH_IDLE_KILL / 1000}).\n` +
  '       tai spawn [options] @NAME [PROMPT...]     an agent of the registry (tai agents)\n' +
  'The result is printed sanitized (only colours, newline and tab survive; colours only to a terminal);\n' +
  '--raw prints its exact bytes (never to a terminal you care about), --json the result as escaped JSON.\n';

/** Seconds one poll waits on the socket (below the server's idle timeout). */
export const POLL_WAIT_S = 8;

/** Where the CLI reads and writes (its writes through src/cli/output.ts); tests pass their own. */
export interface CliIo extends CliSinks {
  /** The whole of stdin when it is not a terminal, else undefined. */
  readStdin(): Promise<string | undefined>;
  /** True when stdin is a terminal: someone is there to answer an agent's questions (default policy `ask`). */
  readonly stdinIsTerminal?: boolean;
  readonly env: NodeJS.ProcessEnv;
  /** The width of the terminal stderr goes to (the live status line's); undefined: 80. */
  readonly errColumns?: number;
  /** Calls `handler` on each Ctrl-C (SIGINT) until the returned function is called. */
  onInterrupt(handler: () => void): () => void;
}

/** The real process's stdio, environment and SIGINT. */
export const processIo: CliIo = {
  out: (text) => processSinks.out(text),
  err: (text) => processSinks.err(text),
  get outIsTerminal() {
    return processSinks.outIsTerminal;
  },
  get errIsTerminal() {
    return processSinks.errIsTerminal;
  },
  readStdin: async () => {
    if (process.stdin.isTTY) return undefined;
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  },
  get stdinIsTerminal() {
    return process.stdin.isTTY === true;
  },
  env: process.env,
  get errColumns() {
    return process.stderr.columns;
  },
  onInterrupt: (handler) => {
    process.on('SIGINT', handler);
    return () => void process.off('SIGINT', handler);
  },
};

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
  },
} as const;

/** Runs `tai spawn ARGS`; returns the exit code. */
export async function run(allArgs: readonly string[], io: CliIo = processIo): Promise<number> {
  const out = new CliOutput(io);
  const { args, lane: laneFlag } = takeLaneFlag(allArgs);
  const parsed = readCommandLine(SPEC, args, out);
  if (typeof parsed === 'number') return parsed;
  const o = parsed.values;
  if (o.json && o.raw) return usageError(SPEC, out, '--json and --raw are two forms of the result: give one');
  const shape: ResultShape = o.json ? 'json' : o.raw ? 'raw' : 'text';
  let argv = parsed.positionals;
  let named: AgentEntry | undefined;
  let words: string[] = [];
  if (argv[0]?.startsWith('@')) {
    try {
      named = findAgent((await loadRegistry(undefined, io.env)).entries, argv[0].slice(1));
    } catch (err) {
      if (!(err instanceof RegistryError || err instanceof UnknownAgentError)) throw err;
      out.warn(`tai spawn: ${field(err.message)}\n`);
      return USAGE_EXIT;
    }
    words = argv.slice(1);
    argv = withModel(named);
  }
  if (argv.length === 0) return usageError(SPEC, out, "nothing to run: give the agent's command after --, or @NAME");
  const timeout = o.timeout === undefined ? undefined : Number(o.timeout);
  const retries = o.retries === undefined ? undefined : Number(o.retries);
  if (timeout !== undefined && !(Number.isFinite(timeout) && timeout > 0)) return usageError(SPEC, out, `--timeout takes a number of seconds above 0, got '${o.timeout}'`);
  const idleCancel = o['idle-cancel'] === undefined ? undefined : /^\d+$/.test(o['idle-cancel'].trim()) ? Number(o['idle-cancel']) : NaN;
  const idleBad = idleCancel === undefined ? undefined : idleCancelProblem(idleCancel);
  if (idleBad !== undefined) return usageError(SPEC, out, `--idle-cancel ${idleBad}, got '${o['idle-cancel']}'`);
  if (retries !== undefined && !(Number.isInteger(retries) && retries >= 0)) return usageError(SPEC, out, `--retries takes a whole number, 0 or more, got '${o.retries}'`);
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
  const socketGiven = o.socket ?? io.env['TAI_PLEXER_SOCKET'];
  // A person at a terminal, with a cockpit to show the question: ask (issue: approvals); a script: reject.
  const policy = permissions ?? (o.allow ? undefined : socketGiven && io.stdinIsTerminal ? 'ask' : undefined);
  const prompt = o.prompt ?? (words.length > 0 ? words.join(' ') : await io.readStdin());
  // Absolute, from where tai spawn was run: a cockpit's own directory may be elsewhere.
  const cwd = resolve(o.cwd ?? '.');
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
    ? entrySpawnCommand(named, { ...asked, cwd, cwdOverride: o.cwd !== undefined, session: true, ...(policy === undefined ? {} : { permissions: policy }), ...(laneFlag === undefined ? {} : { lane: laneFlag }) })
    : { cmd: 'spawn', kind: o.kind ?? 'command', argv, ...asked, ...(policy === undefined ? {} : { permissions: policy }), cwd, ...(laneFlag === undefined ? {} : { lane: laneFlag }) };
  // An explicit --permissions beats the entry's own policy.
  const made = permissions === undefined || !named ? built : { ...built, permissions };
  const request = { ...made, ...(o.queue ? { queue: true } : {}), ...(o['in-lane'] === undefined ? {} : { in_lane: o['in-lane'] }) } as QueuedSpawn;
  if (request.lane !== undefined) {
    // Outside a repository a lane is a bad command line (64), said before any cockpit is asked.
    try {
      await repoOf(request.cwd ?? cwd);
    } catch (err) {
      if (!(err instanceof LaneError)) throw err;
      out.warn(`tai spawn: ${field(err.message)}\n`);
      return USAGE_EXIT;
    }
  }
  const socket = o.socket ?? io.env['TAI_PLEXER_SOCKET'];
  if (socket) return viaCockpit(socket, request, Boolean(o.detach), shape, io, out);
  if (o.detach) {
    out.warn('tai spawn: --detach needs a cockpit to supervise the agent (run it inside `tai`, or pass --socket PATH)\n');
    return USAGE_EXIT;
  }
  return inProcess(request, shape, io, out);
}

/** Asks the cockpit to start the agent, then long-polls its result. */
async function viaCockpit(socket: string, queued: QueuedSpawn, detach: boolean, shape: ResultShape, io: CliIo, out: CliOutput): Promise<number> {
  let id: number;
  const { queue, ...request } = queued;
  try {
    let reply = await call(socket, request);
    if (!reply.ok && queue && reply.error.startsWith('too many agents')) {
      const again = await spawnQueued(request.label ?? request.argv.join(' '), request.prompt ?? '', async () => {
        const r = await call(socket, request);
        return !r.ok && r.error.startsWith('too many agents') ? undefined : r;
      }, io, out);
      if (again === null) return EXIT_CODES.cancelled;
      reply = again;
    }
    if (!reply.ok) {
      out.warn(`tai spawn: ${field(reply.error)}\n`);
      if (reply.error.startsWith('cannot start ')) return CANNOT_START_EXIT;
      return reply.error.startsWith('too many agents') ? EXIT_REFUSED : reply.error.includes('the state database ') ? EXIT_STORAGE : 1;
    }
    id = reply.data.id;
    if (detach) {
      if (shape === 'json') out.json(reply.data);
      else out.say(`${id}\n`);
      return 0;
    }
    out.warn(`tai: agent #${id} started${reply.data.shown ? '' : ` (no panel: ${field(reply.data.reason ?? 'hidden')})`}\n`);
    laneLines(reply.data, out);
  } catch (err) {
    const { exitCode, message } = describeCallError(err);
    out.warn(`tai spawn: ${field(message)}\n`);
    return exitCode;
  }
  const sampler = io.errIsTerminal ? cockpitSampler(socket, id) : undefined;
  const live = sampler ? startLiveStatus(id, io, sampler.sample) : undefined;
  let interrupts = 0;
  const off = io.onInterrupt(() => {
    interrupts++;
    live?.clear();
    if (interrupts === 1) {
      out.warn(`tai: stopping agent #${id} (Ctrl-C again to stop waiting)\n`);
      void call(socket, { cmd: 'cancel', id, reason: 'interrupted (Ctrl-C)' }).catch(() => {});
    }
  });
  try {
    for (;;) {
      const reply = await call(socket, { cmd: 'poll', id, wait: POLL_WAIT_S });
      if (!reply.ok) {
        live?.stop();
        out.warn(`tai spawn: ${field(reply.error)}\n`);
        return 1;
      }
      if (reply.data.finished) {
        live?.stop();
        return printResult(reply.data, shape, out);
      }
      if (interrupts > 1) return EXIT_CODES.cancelled;
    }
  } catch (err) {
    live?.stop();
    const { exitCode, message } = describeCallError(err);
    out.warn(`tai spawn: ${field(message)}\n`);
    return exitCode;
  } finally {
    live?.stop();
    sampler?.stop();
    off();
  }
}

/** Supervises the agent here: a board without drawing, its clock, the state DB. */
async function inProcess(queued: QueuedSpawn, shape: ResultShape, io: CliIo, out: CliOutput): Promise<number> {
  const { queue, ...request } = queued;
  const board = createBoard({ drawingOff: 'outside a cockpit: no panel' });
  const clock = startBoardClock(board);
  // No panel shows a held agent here: its hold, the outage's stage and next probe, and its restart go to stderr, as `tai net` prints them.
  let opened: OpenedAgentService;
  let live: LiveStatus | undefined;
  try {
    opened = openAgentService(board, io.env, Date.now, {
      onProgress: (outage) => {
        live?.clear();
        out.warn(`tai: ${field(progressLine(outage, Date.now()))}\n`);
      },
      tell: (panelId, line) => {
        live?.clear();
        out.warn(`tai: agent #${panelId} ${field(line)}\n`);
      },
    });
  } catch (err) {
    clock.stop();
    if (!(err instanceof StateDbError)) throw err;
    out.warn(`tai spawn: ${field(err.message)}\n`);
    return EXIT_STORAGE;
  }
  const { service } = opened;
  let off = (): void => {};
  const texts = new Map<number, LastText>();
  const offText = board.getState().listen((panel, event) => {
    if (event.type !== 'text') return;
    const t = texts.get(panel) ?? new LastText();
    texts.set(panel, t);
    t.push(event.text);
  });
  try {
    let id: number;
    try {
      const started = await service.spawn(request, Date.now()).catch(async (err: unknown) => {
        if (!(queue && err instanceof AgentsFullError)) throw err;
        return spawnQueued(request.label ?? request.argv.join(' '), request.prompt ?? '', () => service.spawn(request, Date.now()).catch((e: unknown) => {
          if (e instanceof AgentsFullError) return undefined;
          throw e;
        }), io, out);
      });
      if (started === null) return EXIT_CODES.cancelled;
      id = started.id;
      laneLines(started, out);
    } catch (err) {
      if (err instanceof AgentsFullError) {
        out.warn(`tai spawn: ${field(err.message)}\n`);
        return EXIT_REFUSED;
      }
      if (err instanceof RequestError) {
        out.warn(`tai spawn: ${field(err.message)}\n`);
        return err instanceof CannotStartError ? CANNOT_START_EXIT : USAGE_EXIT;
      }
      if (err instanceof StateDbError) {
        out.warn(`tai spawn: the agent was not started: ${field(err.message)}\n`);
        return EXIT_STORAGE;
      }
      throw err;
    }
    const first = id;
    // The attempt now running (a retry opens a new panel): its row and its last line.
    live = startLiveStatus(id, io, () => {
      const now = Date.now();
      const current = service.currentAttempt(first) ?? first;
      const row = board.getState().status(now).agents.find((r) => r.id === current);
      return row && { state: row.state, elapsedMs: row.elapsedMs, tools: row.tools, tokens: row.tokens, last: texts.get(current)?.line ?? '' };
    });
    let interrupts = 0;
    off = io.onInterrupt(() => {
      interrupts++;
      live?.clear();
      if (interrupts === 1) {
        out.warn(`tai: stopping agent #${id} (Ctrl-C again to kill it now)\n`);
        board.getState().cancel(id, 'interrupted (Ctrl-C)', Date.now(), 'user');
      } else service.kill(id);
    });
    for (;;) {
      const result = await service.poll(id, 60_000);
      if (result?.finished) {
        live.stop();
        return printResult(result, shape, out);
      }
    }
  } finally {
    live?.stop();
    offText();
    off();
    clock.stop();
    opened.close();
  }
}

/** A spawn and whether it waits in the queue when refused at the cap. */
type QueuedSpawn = CommandOf<'spawn'> & { readonly queue?: boolean };

/** Says where a lane agent runs and what its maker should know (a dirty main checkout). */
function laneLines(started: SpawnResult, out: CliOutput): void {
  if (started.lane === undefined) return;
  out.warn(`tai: agent #${started.id} runs in lane ${field(started.lane)} (${field(started.cwd ?? '')}); when it ends: tai lane diff ${field(started.lane)}\n`);
  for (const note of started.notes ?? []) out.warn(`tai: ${field(note)}\n`);
}

/** A registry entry's command with its `--model` (src/core/agents/agent-spawn.ts; kept for importers). */
export { withModel };

/** How a result is printed: sanitized text (the default), its exact bytes (`--raw`), or escaped JSON (`--json`). */
export type ResultShape = 'text' | 'raw' | 'json';

/** Prints a result so far: its text on stdout, as `shape` says. */
export function printText(text: string, shape: ResultShape, out: CliOutput): void {
  if (text !== '') out.result(text.endsWith('\n') ? text : `${text}\n`, shape === 'raw');
}

/** Prints a finished result (text on stdout, a one-line summary on stderr) and returns its exit code. */
export function printResult(result: AgentResult, shape: ResultShape, out: CliOutput): number {
  if (shape === 'json') out.json(result);
  else {
    printText(result.text, shape, out);
    const record = result.recordId
      ? ` · whole result: tai record read ${field(result.recordId)} --all`
      : result.storageError === undefined
        ? ''
        : ` · the result could not be stored (${field(result.storageError)}); ${result.resultFile === undefined ? 'the whole of it is on stdout' : `the whole of it is in ${field(result.resultFile)}`}`;
    out.warn(`tai: agent #${result.id} ${result.state}${result.reason ? ` (${field(result.reason)})` : ''}${record}\n`);
  }
  return result.exitCode ?? (isLive(result.state) ? 0 : EXIT_CODES[result.state as keyof typeof EXIT_CODES]);
}

function isOneOf<T extends string>(value: string, allowed: readonly T[]): value is T {
  return (allowed as readonly string[]).includes(value);
}
