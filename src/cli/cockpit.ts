/**
 * `tai` and `tai -- CMD ARGS`: the cockpit with `$SHELL` (or CMD) in the main
 * pane; returns the main program's exit code, or the refusal's code with its
 * reason when it cannot start (127: no main program, 64: a bad TAI_PREFIX,
 * 1: a dumb terminal).
 */
import type { CockpitMainOptions } from '../io/cockpit/cockpit-main.js';
import { StartRefusedError } from '../core/errors.js';
import { idleCollection } from '../io/idle-collect.js';
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
  // Start-up (loading Ink, React, yoga, xterm.js) grows V8's new space as streaming does:
  // given back once the cockpit has been quiet a while, when gc is exposed (SERVER_NODE_FLAGS).
  idleCollection.activity();
  try {
    return await runCockpit(options);
  } catch (err) {
    // Refused before the screen was taken over: the main program, the prefix key, the terminal.
    if (!(err instanceof StartRefusedError)) throw err;
    processOutput.warn(`${field(err.message)}\n`);
    return err.exitCode;
  }
}
