/**
 * `tai` and `tai -- CMD ARGS`: the cockpit with `$SHELL` (or CMD) in the main
 * pane; returns the main program's exit code.
 */

/** Runs the cockpit until the main program exits. */
export async function run(args: readonly string[]): Promise<number> {
  const env = { ...process.env }; // the main program gets the user's environment, not ours
  // React's development build adds performance.measure calls to every render (LIBRARY-NOTES.md).
  process.env.NODE_ENV ??= 'production';
  const { runCockpit } = await import('../io/cockpit/cockpit-main.js');
  return runCockpit({ argv: args, env });
}
