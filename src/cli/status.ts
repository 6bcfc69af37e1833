/**
 * `tai status [--json]`: the cockpit's agents and their states, from the
 * cockpit named by --socket or TAI_PLEXER_SOCKET. With no cockpit reachable
 * it falls back to the agents' rows stored in the state database (so status
 * survives a cockpit restart), labelled as stored, not live. Exit 0 on ok
 * (live or stored), 1 on an error reply, 2 when no cockpit is reachable and
 * nothing is stored, 64 for a bad command line. Labels and reasons are an
 * agent's or a socket client's text: each is printed as one sanitized line
 * with secrets masked (src/cli/output.ts); --json escapes every control.
 */
import { parseArgs } from 'node:util';
import { call, describeCallError, resolveSocket } from '../io/socket/control-client.js';
import type { AgentRow, BoardStatus } from '../../store/status.js';
import { messageOf } from '../core/errors.js';
import { PANEL_STATES } from '../core/panel/panel-state.js';
import { storedStatus, type StoredStatus } from '../io/storage/stored-status.js';
import { USAGE_EXIT } from './command-line.js';
import { CliOutput, field, processOutput } from './output.js';

/** Runs `tai status ARGS`; returns the exit code. */
export async function run(args: readonly string[], out: CliOutput = processOutput): Promise<number> {
  let o;
  try {
    ({ values: o } = parseArgs({ args: [...args], options: { json: { type: 'boolean' }, socket: { type: 'string' } } }));
  } catch (err) {
    out.warn(`tai status: ${field(messageOf(err))}\nusage: tai status [--json] [--socket PATH]\n`);
    return USAGE_EXIT;
  }
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
  if (o.json) out.json(reply.data);
  else out.say(formatStatus(reply.data));
  return 0;
}

/** No cockpit answered: the stored rows when there are any, else the error and `exitCode`. */
function stored(why: string, exitCode: number, json: boolean, out: CliOutput): number {
  let status: StoredStatus | undefined;
  try {
    status = storedStatus(process.env, Date.now());
  } catch (err) {
    out.warn(`tai status: ${field(why)}\ntai status: the stored agents could not be read: ${field(messageOf(err))}\n`);
    return exitCode;
  }
  out.warn(`tai status: ${field(why)}\n`);
  if (status === undefined) return exitCode;
  if (json) out.json(status);
  else out.say(formatStoredStatus(status));
  return 0;
}

/** The human form of the stored rows: a line saying they are stored, not live, then the usual form. */
export function formatStoredStatus(status: StoredStatus): string {
  return `no cockpit reachable: agents as stored in ${status.db} (not live)\n${formatStatus(status)}`;
}

/** The human form: a totals line, then one line per agent or feed pane (labels and reasons one sanitized line each). */
export function formatStatus(status: BoardStatus): string {
  const totals = PANEL_STATES.filter((s) => status.totals[s] > 0).map((s) => `${status.totals[s]} ${s}`);
  const lines = [`${status.totals.total} panel${status.totals.total === 1 ? '' : 's'}${totals.length ? `: ${totals.join(', ')}` : ''}`];
  for (const row of status.agents) lines.push(formatRow(row));
  return `${lines.join('\n')}\n`;
}

/** `1 tool`, `2 tools`: a count with its noun, singular for one. */
function count(n: number, noun: string): string {
  return `${n} ${n === 1 ? noun : `${noun}s`}`;
}

function formatRow(row: AgentRow): string {
  const parts = [`#${row.id}`.padEnd(5), row.state.padEnd(9), `${Math.round(row.elapsedMs / 1000)}s`.padStart(6), ` ${field(row.label)}`];
  if (row.kind === 'agent') parts.push(` · ${count(row.tools, 'tool')} · ${count(row.tokens, 'token')}`);
  else parts.push(' · feed pane');
  if (row.droppedBytes > 0) parts.push(` · ${row.droppedBytes} bytes dropped`);
  if (row.reason) parts.push(` · ${field(row.reason)}`);
  return `  ${parts.join(' ')}`;
}
