/**
 * `tai poll ID [--wait S]`: an agent's result so far, printed as `tai spawn` prints it. A finished agent exits with
 * its state's code; a running one prints what it has and exits 0, its state on stderr; 1 an error reply, 2 no
 * cockpit, 64 a bad line.
 */
import { call, describeCallError, resolveSocket } from '../../io/socket/control-client.js';
import { processIo, type CliIo } from '../cli-io.js';
import { printResult, printText } from '../spawn/spawn-result.js';
import { agentIdProblem, readCommandLine, usageError } from '../command-line.js';
import { CliOutput, field, fieldLines } from '../output.js';

const USAGE =
  'usage: tai poll ID [--wait SECONDS] [--json | --raw] [--socket PATH]\n' +
  'The result is printed sanitized (only colours, newline and tab survive; colours only to a terminal);\n' +
  '--raw prints its exact bytes, --json the result as escaped JSON.\n';

const SPEC = {
  name: 'poll',
  usage: USAGE,
  options: { wait: { type: 'string' }, json: { type: 'boolean' }, raw: { type: 'boolean' }, socket: { type: 'string' } },
} as const;

/** Runs `tai poll ARGS`; returns the exit code. */
export async function run(args: readonly string[], io: CliIo = processIo): Promise<number> {
  const out = new CliOutput(io);
  const parsed = readCommandLine(SPEC, args, out);
  if (typeof parsed === 'number') return parsed;
  const [idText, ...extra] = parsed.positionals;
  const bad = agentIdProblem(idText, extra);
  if (bad !== undefined) return usageError(SPEC, out, bad);
  const id = Number(idText);
  const wait = parsed.values.wait === undefined ? undefined : Number(parsed.values.wait);
  if (wait !== undefined && !(wait >= 0)) return usageError(SPEC, out, `--wait takes a number of seconds, 0 or more, got '${parsed.values.wait}'`);
  if (parsed.values.json && parsed.values.raw) return usageError(SPEC, out, '--json and --raw are two forms of the result: give one');
  const shape = parsed.values.json ? 'json' : parsed.values.raw ? 'raw' : 'text';
  const found = resolveSocket(parsed.values.socket, io.env);
  const socket = found.path;
  if (socket === undefined) {
    out.warn(`tai poll: ${fieldLines(found.why)}\n`);
    return 2;
  }
  try {
    const reply = await call(socket, { cmd: 'poll', id, ...(wait === undefined ? {} : { wait }) });
    if (!reply.ok) {
      out.warn(`tai poll: ${field(reply.error)}\n`);
      return 1;
    }
    if (reply.data.finished) return printResult(reply.data, shape, out);
    if (shape === 'json') out.json(reply.data);
    else {
      printText(reply.data.text, shape, out);
      out.warn(`tai: agent #${id} ${reply.data.state} (${reply.data.chars} chars so far)\n`);
    }
    return 0;
  } catch (err) {
    const { exitCode, message } = describeCallError(err);
    out.warn(`tai poll: ${field(message)}\n`);
    return exitCode;
  }
}
