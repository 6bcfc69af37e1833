/**
 * `tai cancel ID`: asks the cockpit to stop an agent, soft then hard (docs/spec.md, "Supervision"): a retried job's
 * running attempt; a held job stops waiting. Exit 0 asked, 1 an error reply, 2 no cockpit, 64 a bad line.
 */
import { call, describeCallError, resolveSocket } from '../../io/socket/control-client.js';
import { agentIdProblem, readCommandLine, usageError } from '../command-line.js';
import { CliOutput, field, fieldLines, processOutput } from '../output.js';

const USAGE = 'usage: tai cancel ID [--socket PATH] | tai cancel qN (a queued spawn)\n';

const SPEC = { name: 'cancel', usage: USAGE, options: { socket: { type: 'string' } } } as const;

/** Runs `tai cancel ARGS`; returns the exit code. */
export async function run(args: readonly string[], out: CliOutput = processOutput): Promise<number> {
  const parsed = readCommandLine(SPEC, args, out);
  if (typeof parsed === 'number') return parsed;
  const [idText, ...extra] = parsed.positionals;
  // A queued spawn's ticket (tai spawn --queue): no cockpit needed, its waiting process sees the ticket gone.
  if (idText !== undefined && /^q\d+$/.test(idText) && extra.length === 0) return cancelTicket(Number(idText.slice(1)), out);
  const bad = agentIdProblem(idText, extra);
  if (bad !== undefined) return usageError(SPEC, out, bad);
  const found = resolveSocket(parsed.values.socket);
  const socket = found.path;
  if (socket === undefined) {
    out.warn(`tai cancel: ${fieldLines(found.why)}\n`);
    return 2;
  }
  let reply;
  try {
    reply = await call(socket, { cmd: 'cancel', id: Number(idText) });
  } catch (err) {
    const { exitCode, message } = describeCallError(err);
    out.warn(`tai cancel: ${field(message)}\n`);
    return exitCode;
  }
  if (!reply.ok) {
    out.warn(`tai cancel: ${field(reply.error)}\n`);
    return 1;
  }
  const asked = Number(idText);
  // A retried job answers to its first id; the stop goes to the attempt running now.
  const which = reply.data.id === asked ? `agent ${asked}` : `agent ${asked} (its current attempt, #${reply.data.id})`;
  out.say(`cancel requested for ${which}\n`);
  return 0;
}

/** Removes a queued spawn's ticket; 1 when there is no such ticket. */
async function cancelTicket(id: number, out: CliOutput): Promise<number> {
  const { join } = await import('node:path');
  const { openStateDb, stateDir, STATE_DB_FILE } = await import('../../io/storage/state-db.js');
  const { SpawnQueue } = await import('../../io/agents/spawn/spawn-queue.js');
  const db = openStateDb(join(stateDir(), STATE_DB_FILE));
  try {
    if (!new SpawnQueue(db).remove(id)) {
      out.warn(`tai cancel: no queued spawn q${id} (tai status lists the queue)\n`);
      return 1;
    }
    out.say(`q${id} left the queue\n`);
    return 0;
  } finally {
    db.close();
  }
}
