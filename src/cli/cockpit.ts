/**
 * `tai` and `tai -- CMD ARGS`: the cockpit with `$SHELL` (or CMD) in the main
 * pane; returns the main program's exit code, or 127 with the reason when it
 * cannot be started.
 */
import type { CockpitMainOptions } from '../io/cockpit/cockpit-main.js';
import { field, processOutput } from './output.js';

/** Runs the cockpit until the main program exits. */
export async function run(args: readonly string[]): Promise<number> {
  const env = { ...process.env }; // the main program gets the user's environment, not ours
  return runCockpitCommand({ argv: args, env });
}

/** Runs a cockpit for a subcommand: React in production mode, a main program that cannot start said so (127). */
export async function runCockpitCommand(options: CockpitMainOptions): Promise<number> {
  // React's development build adds performance.measure calls to every render (LIBRARY-NOTES.md).
  process.env.NODE_ENV ??= 'production';
  const { runCockpit } = await import('../io/cockpit/cockpit-main.js');
  const { MainProgramError } = await import('../io/cockpit/main-program.js');
  try {
    return await runCockpit(options);
  } catch (err) {
    if (!(err instanceof MainProgramError)) throw err;
    processOutput.warn(`${field(err.message)}\n`);
    return err.exitCode;
  }
}
