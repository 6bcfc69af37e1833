/**
 * `tai demo [--agents stream,tools,silent,fail|MODE*N] [--rate T] [--seconds S] [[--] CMD]`:
 * the cockpit with `$SHELL` (or CMD) on the left and example agents that are
 * real child processes, so everything can be seen with no model and no API key.
 */
import { parseDemoArgs } from '../../io/agents/spawn/demo-agents.js';
import { messageOf } from '../../core/errors.js';
import { runCockpitCommand } from './cockpit.js';
import { readCommandLine, usageError } from '../command-line.js';
import { processOutput } from '../output.js';

const SPEC = {
  name: 'demo',
  usage:
    'usage: tai demo [-s NAME] [--agents MODE[*N],...] [--rate T] [--seconds S] [[--] CMD ARGS...]\n' +
    'The cockpit with $SHELL (or CMD) on the left and example agents on the right: real child processes, no model needed.\n' +
    '  --agents   which example agents, in order (default stream,tools,silent,fail); MODE*N starts N of one:\n' +
    '             stream (streams text), tools (calls tools), silent (goes quiet: the watchdog acts), fail (fails)\n' +
    '  --rate     tokens per second of streamed text (default 40)\n' +
    '  --seconds  seconds a stream agent streams (default 30)\n' +
    '  -s NAME    the cockpit\'s name (tai attach NAME, tai kill NAME)\n',
  options: { agents: { type: 'string' }, rate: { type: 'string' }, seconds: { type: 'string' }, session: { type: 'string', short: 's' } },
  command: true,
} as const;

/** Runs the demo until the main program exits. */
export async function run(args: readonly string[]): Promise<number> {
  const line = readCommandLine(SPEC, args, processOutput);
  if (typeof line === 'number') return line;
  const { agents, rate, seconds } = line.values;
  for (const [flag, text] of [['rate', rate], ['seconds', seconds]] as const) {
    if (text !== undefined && !(Number(text) > 0)) return usageError(SPEC, processOutput, `--${flag} takes a number above 0, got '${text}'`);
  }
  let parsed: ReturnType<typeof parseDemoArgs>;
  try {
    parsed = parseDemoArgs([
      ...(agents === undefined ? [] : ['--agents', agents]),
      ...(rate === undefined ? [] : ['--rate', rate]),
      ...(seconds === undefined ? [] : ['--seconds', seconds]),
      '--',
      ...line.command,
    ]);
  } catch (err) {
    return usageError(SPEC, processOutput, messageOf(err).replace(/^tai demo: /, ''));
  }
  const env = { ...process.env }; // the main program gets the user's environment, not ours
  const { startDemoAgent } = await import('../../io/agents/spawn/demo-agents.js');
  const name = line.values.session;
  return runCockpitCommand(
    {
      argv: parsed.rest,
      env,
      started: (cockpit) => parsed.specs.forEach((spec, i) => startDemoAgent(cockpit.board, spec, cockpit.now, i + 1)),
    },
    { command: 'demo', args, argv: parsed.rest, ...(name === undefined ? {} : { name }) },
  );
}
