/**
 * `tai` and `tai -- CMD ARGS`: the cockpit with `$SHELL` (or CMD) in the main
 * pane; returns the main program's exit code.
 */

/** Runs the cockpit until the main program exits. */
export async function run(args: readonly string[]): Promise<number> {
  // React's development build adds performance.measure calls to every render (LIBRARY-NOTES.md).
  const env = { ...process.env }; // the main program gets the user's environment, not ours
  process.env.NODE_ENV ??= 'production';
  const { startCockpit } = await import('../io/cockpit.js');
  const cockpit = startCockpit({ argv: args, env });
  return cockpit.done;
}
