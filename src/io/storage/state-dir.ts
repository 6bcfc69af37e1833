/** Where tai keeps its state, on its own so that the thin client finds its log without loading SQLite. */
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/** The folder of tai's state: `$XDG_STATE_HOME/tai`, or `~/.local/state/tai` when that is unset or not absolute. */
export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env['XDG_STATE_HOME'];
  // The XDG spec says a relative path there is invalid and must be ignored.
  const base = xdg !== undefined && isAbsolute(xdg) ? xdg : join(homedir(), '.local', 'state');
  return join(base, 'tai');
}
