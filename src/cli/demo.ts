/**
 * `tai demo [--agents stream,tools,silent,fail|MODE*N] [--rate T] [--seconds S] [-- CMD]`:
 * the cockpit with `$SHELL` (or CMD) on the left and example agents that are
 * real child processes, so everything can be seen with no model and no API key.
 */
import { parseDemoArgs } from '../io/cockpit/demo-agents.js';
import { messageOf } from '../core/errors.js';
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
  process.env.NODE_ENV ??= 'production'; // before React loads (LIBRARY-NOTES.md)
  const { runCockpit } = await import('../io/cockpit/cockpit-main.js');
  const { startDemoAgent } = await import('../io/cockpit/demo-agents.js');
  return runCockpit({
    argv: parsed.rest,
    env,
    started: (cockpit) => parsed.specs.forEach((spec, i) => startDemoAgent(cockpit.board, spec, cockpit.now, i + 1)),
  });
}
