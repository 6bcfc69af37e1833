/**
 * The folder `src/cli/results/`: what agents did and do. This file: `tai status [--json]`, the cockpit's agents and
 * states, or, with no cockpit reachable, the rows stored in the state database, labelled stored. Labels and reasons
 * are others' text: each one sanitized line, secrets masked (src/cli/output.ts). Exit 0, 1 on an error reply, 2 when
 * nothing is reachable or stored, 64 a bad line.
 */
import { call, describeCallError, resolveSocket } from '../../io/socket/control-client.js';
import type { AgentRow, BoardStatus } from '../../../store/status.js';
import { messageOf } from '../../core/errors.js';
import { isLive, PANEL_STATES } from '../../core/panel/panel-state.js';
import { storedStatus, type StoredStatus } from '../../io/storage/stored-status.js';
import { join } from 'node:path';
import { SpawnQueue } from '../../io/agents/spawn/spawn-queue.js';
import { openStateDb, stateDir, STATE_DB_FILE } from '../../io/storage/state-db.js';
import { hostOutageJson, hostOutageLine, hostOutagesNow } from '../../io/host-holds/host-outage-view.js';
import { readCommandLine, usageError } from '../command-line.js';
import { CliOutput, field, fieldLines, processOutput } from '../output.js';

const USAGE =
  'usage: tai status [--all] [--json] [--socket PATH]\n' +
  "The agents of this cockpit (the one --socket, TAI_PLEXER_SOCKET or the only one running names), live;\n" +
  'with no cockpit reachable, the last run stored in the state database.\n' +
  '--all: every run stored on this machine (the newest 50 agents), each as PID/ID: its cockpit\'s process id and its id there.\n';

const SPEC = { name: 'status', usage: USAGE, options: { all: { type: 'boolean' }, json: { type: 'boolean' }, socket: { type: 'string' } } } as const;

/** Runs `tai status ARGS`; returns the exit code. */
export async function run(args: readonly string[], out: CliOutput = processOutput): Promise<number> {
  const parsed = readCommandLine(SPEC, args, out);
  if (typeof parsed === 'number') return parsed;
  if (parsed.positionals.length > 0) return usageError(SPEC, out, `unexpected argument '${parsed.positionals[0]}'`);
  const o = parsed.values;
  if (o.all) return history(o.json === true, out);
  const found = resolveSocket(o.socket);
  const socket = found.path;
  if (socket === undefined) return stored(found.why, 2, o.json === true, out);
  let reply;
  try {
    reply = await call(socket, { cmd: 'status' });
  } catch (err) {
    const { exitCode, message } = describeCallError(err);
    if (exitCode === 2) return stored(message, exitCode, o.json === true, out);
    out.warn(`tai status: ${field(message)}\n`);
    return exitCode;
  }
  if (!reply.ok) {
    out.warn(`tai status: ${field(reply.error)}\n`);
    return 1;
  }
  // A remote agent's lost link (docs/remote.md): the hosts waited for, beside the agents they hold.
  const hosts = hostOutagesNow();
  if (o.json) out.json(hosts.length === 0 ? reply.data : { ...reply.data, hostOutages: hosts.map(hostOutageJson) });
  else out.say(formatStatus(reply.data) + queuedLines() + hosts.map((view) => `${hostOutageLine(view)}\n`).join(''));
  return 0;
}

/** The spawns waiting in the queue (tai spawn --queue), one line each; '' when none or unreadable. */
function queuedLines(): string {
  try {
    const db = openStateDb(join(stateDir(), STATE_DB_FILE));
    try {
      const now = Date.now();
      return new SpawnQueue(db)
        .list()
        .map((t) => `${`q${t.id}`.padEnd(5)} ${'queued'.padEnd(9)} ${`${Math.round((now - t.queuedAt) / 1000)}s`.padStart(6)}  ${field(t.label)}\n`)
        .join('');
    } finally {
      db.close();
    }
  } catch {
    return '';
  }
}

/** `--all`: every run's stored rows, ids PID/ID; 0, or 2 when nothing is stored yet. */
function history(json: boolean, out: CliOutput): number {
  let status: StoredStatus | undefined;
  try {
    status = storedStatus(process.env, Date.now(), true);
  } catch (err) {
    out.warn(`tai status: the stored agents could not be read: ${field(messageOf(err))}\n`);
    return 1;
  }
  if (status === undefined) {
    out.warn('tai status: no agent has run on this machine yet (no state database)\n');
    return 2;
  }
  if (json) out.json(status);
  else out.say(formatStoredStatus(status));
  return 0;
}

/** No cockpit answered: the stored rows when there are any, else the error and `exitCode`. */
function stored(why: string, exitCode: number, json: boolean, out: CliOutput): number {
  let status: StoredStatus | undefined;
  try {
    status = storedStatus(process.env, Date.now());
  } catch (err) {
    out.warn(`tai status: ${fieldLines(why)}\ntai status: the stored agents could not be read: ${field(messageOf(err))}\n`);
    return exitCode;
  }
  out.warn(`tai status: ${fieldLines(why)}\n`);
  if (status === undefined) return exitCode;
  if (json) out.json(status);
  else out.say(formatStoredStatus(status) + queuedLines());
  return 0;
}

/** The human form of the stored rows: a line saying they are stored, not live, then the usual form with PID/ID ids. */
export function formatStoredStatus(status: StoredStatus): string {
  const what = status.all ? 'every run' : 'the last run (tai status --all: every run)';
  return `agents of ${what} as stored in ${status.db} (not live)\n${formatStatus(status, status.keys)}`;
}

/** The human form: a totals line, then one line per agent or feed pane (labels and reasons one sanitized line each); `keys` replace the ids (PID/ID). */
export function formatStatus(status: BoardStatus, keys?: readonly string[]): string {
  const totals = PANEL_STATES.filter((s) => status.totals[s] > 0).map((s) => `${status.totals[s]} ${s}`);
  const lines = [`${whatIsShown(status.agents)}${totals.length ? `: ${totals.join(', ')}` : ''}`];
  const width = Math.max(5, ...(keys ?? []).map((k) => k.length + 2));
  status.agents.forEach((row, i) => lines.push(formatRow(row, keys?.[i] ?? `#${row.id}`, width)));
  return `${lines.join('\n')}\n`;
}

/** The rows counted by what they are: `3 agents`, `1 agent, 1 feed pane` (a feed pane is no agent). */
function whatIsShown(rows: readonly { readonly kind: 'agent' | 'feed' }[]): string {
  const agents = rows.filter((r) => r.kind === 'agent').length;
  const feeds = rows.length - agents;
  const said = `${agents} agent${agents === 1 ? '' : 's'}`;
  return feeds === 0 ? said : `${said}, ${feeds} feed pane${feeds === 1 ? '' : 's'}`;
}

/** `1 tool`, `2 tools`: a count with its noun, singular for one. */
function count(n: number, noun: string): string {
  return `${n} ${n === 1 ? noun : `${noun}s`}`;
}

function formatRow(row: AgentRow, id: string, width: number): string {
  const parts = [id.padEnd(width), row.state.padEnd(9), `${Math.round(row.elapsedMs / 1000)}s`.padStart(6), ` ${field(row.label)}`];
  if (row.kind === 'agent') parts.push(` · ${count(row.tools, 'tool')} · ${count(row.tokens, 'token')}`);
  else parts.push(' · feed pane');
  // A live agent with its own silence limit says it, as the rule it is (nothing happened yet): the default (300 s) goes unsaid.
  if (row.idleCancelMs !== undefined && isLive(row.state)) parts.push(` · cancelled if silent for ${Math.round(row.idleCancelMs / 1000)}s`);
  if (row.droppedBytes > 0) parts.push(` · ${row.droppedBytes} bytes dropped`);
  if (row.reason) parts.push(` · ${field(row.reason)}`);
  return `  ${parts.join(' ')}`;
}
