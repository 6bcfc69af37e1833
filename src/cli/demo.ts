/**
 * `tai demo [--agents stream,tools,silent,fail|MODE*N] [--rate T] [--seconds S] [-- CMD]`:
 * the cockpit with `$SHELL` (or CMD) on the left and example agents that are
 * real child processes, so everything can be seen with no model and no API key.
 */
import { parseDemoArgs } from '../io/agents/demo-agents.js';
import { messageOf } from '../core/errors.js';
import { runCockpitCommand } from './cockpit.js';
import { field, processOutput } from './output.js';

/** Runs the demo until the main program exits. */
export async function run(args: readonly string[]): Promise<number> {
  let parsed: ReturnType<typeof parseDemoArgs>;
  try {
    parsed = parseDemoArgs(args);
  } catch (err) {
    processOutput.warn(`${field(messageOf(err))}\n`);
    return 2;
  }
  const env = { ...process.env }; // the main program gets the user's environment, not ours
  const { startDemoAgent } = await import('../io/agents/demo-agents.js');
  return runCockpitCommand({
    argv: parsed.rest,
    env,
    started: (cockpit) => parsed.specs.forEach((spec, i) => startDemoAgent(cockpit.board, spec, cockpit.now, i + 1)),
  });
}
