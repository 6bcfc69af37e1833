/**
 * `tai poll ID [--wait S] [--json] [--socket PATH]`: an agent's result so far
 * from the cockpit (the claim-check view when long). A finished agent exits
 * with its state's code (0 done, 1 failed, 124 timeout, 130 cancelled); one
 * still running prints what it has so far and exits 0 with its state on
 * stderr. 1 for an error reply, 2 when no cockpit is reachable, 64 for a bad
 * command line.
 */
import { call, describeCallError, resolveSocket } from '../io/socket/control-client.js';
import { printResult, processIo, type CliIo } from './spawn.js';
import { parseCommandLine, USAGE_EXIT } from './command-line.js';

const USAGE = 'usage: tai poll ID [--wait SECONDS] [--json] [--socket PATH]\n';

/** Runs `tai poll ARGS`; returns the exit code. */
export async function run(args: readonly string[], io: CliIo = processIo): Promise<number> {
  const parsed = parseCommandLine('poll', args, { wait: { type: 'string' }, json: { type: 'boolean' }, socket: { type: 'string' } }, USAGE, io.err);
  if (!parsed) return USAGE_EXIT;
  const id = Number(parsed.positionals[0]);
  const wait = parsed.values.wait === undefined ? undefined : Number(parsed.values.wait);
  if (parsed.positionals.length !== 1 || !Number.isInteger(id) || id < 1 || (wait !== undefined && !(wait >= 0))) {
    io.err(USAGE);
    return USAGE_EXIT;
  }
  const found = resolveSocket(parsed.values.socket, io.env);
  const socket = found.path;
  if (socket === undefined) {
    io.err(`tai poll: ${found.why}\n`);
    return 2;
  }
  try {
    const reply = await call(socket, { cmd: 'poll', id, ...(wait === undefined ? {} : { wait }) });
    if (!reply.ok) {
      io.err(`tai poll: ${reply.error}\n`);
      return 1;
    }
    if (reply.data.finished) return printResult(reply.data, Boolean(parsed.values.json), io);
    if (parsed.values.json) io.out(`${JSON.stringify(reply.data)}\n`);
    else {
      if (reply.data.text !== '') io.out(reply.data.text.endsWith('\n') ? reply.data.text : `${reply.data.text}\n`);
      io.err(`tai: agent #${id} ${reply.data.state} (${reply.data.chars} chars so far)\n`);
    }
    return 0;
  } catch (err) {
    const { exitCode, message } = describeCallError(err);
    io.err(`tai poll: ${message}\n`);
    return exitCode;
  }
}
