/**
 * `tai restart ID` (docs/restore.md): starts again, from its stored launch, an agent that ended with its cockpit and
 * was not resumed: the same kind, argv, folder, prompt, policy and clocks, in the cockpit the socket finds; a
 * lane's agent as `tai lane restart` does. Exit 0 started, 1 cannot be, 64 a bad line.
 */
import { join } from 'node:path';
import { messageOf } from '../../core/errors.js';
import type { CommandOf } from '../../core/protocol/commands.js';
import { parseLaunch, type Launch } from '../../core/restore/launch.js';
import { maskedEnv } from '../../core/restore/restore-plan.js';
import { readCommandLine, usageError } from '../command-line.js';
import { processIo, type CliIo } from '../cli-io.js';
import { field, fieldLines, processOutput, type CliOutput } from '../output.js';

const USAGE =
  'usage: tai restart ID [-t NAME | --socket PATH]\n' +
  'Starts again, from its stored launch, an agent that ended with its cockpit (its panel says "tai restart ID").\n' +
  "A lane's agent starts from the lane's last commit; its uncommitted edits are saved aside first.\n";

const SPEC = { name: 'restart', usage: USAGE, options: { socket: { type: 'string' } } } as const;

/** Runs `tai restart ARGS`; returns the exit code. */
export async function run(args: readonly string[], io: CliIo = processIo, out: CliOutput = processOutput): Promise<number> {
  const line = readCommandLine(SPEC, args, out);
  if (typeof line === 'number') return line;
  const [idText, ...extra] = line.positionals;
  const id = Number(idText);
  if (idText === undefined || !Number.isInteger(id) || id <= 0) return usageError(SPEC, out, 'which agent? the id its panel names (tai restart ID)');
  if (extra.length > 0) return usageError(SPEC, out, 'one agent at a time');
  const [{ resolveSocket, call }, { openStateDb, stateDir, STATE_DB_FILE }, { RestoreStore }] = await Promise.all([
    import('../../io/socket/control-client.js'),
    import('../../io/storage/state-db.js'),
    import('../../io/restore/restore-store.js'),
  ]);
  const found = resolveSocket(line.values.socket, io.env);
  if (found.path === undefined) {
    out.warn(`tai restart: ${fieldLines(found.why ?? 'no cockpit')}\n`);
    return 1;
  }
  const pid = Number(/tai-(\d+)\.sock$/.exec(found.path)?.[1]);
  const db = openStateDb(join(stateDir(io.env), STATE_DB_FILE));
  let launch: Launch;
  let lane;
  try {
    const store = new RestoreStore(db);
    const run = store.runOfPid(pid);
    const row = run === undefined ? undefined : store.launch(run, id);
    if (row === undefined) {
      out.warn(`tai restart: no stored launch of agent ${id} in the cockpit at ${field(found.path)}: tai restart takes the id a panel names after a restore (tai status lists the agents)\n`);
      return 1;
    }
    const parsed = parseLaunch(row.launch);
    if ('problem' in parsed) {
      out.warn(`tai restart: agent ${id} cannot be started again: ${parsed.problem}; its row is kept as it was\n`);
      return 1;
    }
    launch = parsed;
    if (launch.lane !== undefined) {
      const { LaneStore } = await import('../../io/lanes/lane-store.js');
      lane = new LaneStore(db).list().find((l) => l.name === launch.lane && l.worktree === launch.cwd);
    }
    if (lane !== undefined) {
      const { restartLaneCli } = await import('../lanes/lane-restart.js');
      return await restartLaneCli(db, lane, found.path, io, out);
    }
  } catch (err) {
    out.warn(`tai restart: ${fieldLines(messageOf(err))}\n`);
    return 1;
  } finally {
    if (db.open) db.close();
  }
  if (launch.env !== undefined && Object.keys(launch.env).length > 0) {
    out.warn(`tai restart: agent ${id} was given an environment beyond the cockpit's (${maskedEnv(launch.env)}), which a spawn over the socket cannot carry: start it from the program that made it\n`);
    return 1;
  }
  try {
    const reply = await call(found.path, spawnOf(launch));
    if (!reply.ok) throw new Error(reply.error);
    out.warn(`tai: agent #${reply.data.id} (${field(reply.data.label)}) started again from the stored launch of agent ${id}\n`);
    out.say(`${reply.data.id}\n`);
    return 0;
  } catch (err) {
    out.warn(`tai restart: ${fieldLines(messageOf(err))}\n`);
    return 1;
  }
}

/** The spawn command of a stored launch: the same agent, with the whole wall clock it was first given. */
export function spawnOf(launch: Launch): CommandOf<'spawn'> {
  return {
    cmd: 'spawn',
    kind: launch.kind,
    argv: launch.argv,
    label: launch.label,
    ...(launch.agent === undefined ? {} : { agent: launch.agent }),
    timeout: Math.round(launch.limitMs / 1000),
    retries: launch.retriesLeft,
    ...(launch.prompt === undefined ? {} : { prompt: launch.prompt }),
    ...(launch.cwd === undefined ? {} : { cwd: launch.cwd }),
    ...(launch.idleKillMs === undefined ? {} : { idle_cancel: Math.round(launch.idleKillMs / 1000) }),
    ...(launch.allow === undefined ? {} : { allow: launch.allow }),
    ...(launch.permissions === undefined ? {} : { permissions: launch.permissions }),
    ...(launch.askTimeoutMs === undefined ? {} : { ask_timeout: Math.round(launch.askTimeoutMs / 1000) }),
    ...(launch.askDefault === undefined ? {} : { ask_default: launch.askDefault }),
    ...(launch.stdin === undefined ? {} : { stdin: launch.stdin }),
    ...(launch.session === undefined ? {} : { session: launch.session }),
  };
}
