/** Where tai keeps its state, on its own so that the thin client finds its log without loading SQLite. */
import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/** The folder of tai's state: `$XDG_STATE_HOME/tai`, or `~/.local/state/tai` when that is unset or not absolute. */
export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env['XDG_STATE_HOME'];
  // The XDG spec says a relative path there is invalid and must be ignored.
  const base = xdg !== undefined && isAbsolute(xdg) ? xdg : join(homedir(), '.local', 'state');
  return join(base, 'tai');
}

/**
 * Why the state folder or a file in it must not be used (undefined: it may): it, or a symlink's target, must be
 * the user's own and closed to others' writes (docs/security.md, "Who can reach the socket"). A missing path is fine.
 */
export function foreignStateReason(path: string, kind: 'folder' | 'database'): string | undefined {
  let st;
  try {
    st = statSync(path);
  } catch {
    return undefined;
  }
  const me = process.getuid?.();
  const what = kind === 'folder' ? 'the state folder' : 'the state database';
  const fix = 'set XDG_STATE_HOME to a folder of your own';
  if (kind === 'folder' && !st.isDirectory()) return `${what} ${path} is not a directory; remove it, or ${fix}`;
  if (kind === 'database' && !st.isFile()) return `${what} ${path} is not a file; remove it, or ${fix}`;
  if (me !== undefined && st.uid !== me) {
    return `${what} ${path} belongs to user ${st.uid}, not to you (${me}); refusing to use it: that user could read your tasks and results. Have it removed (it is not yours to remove), or ${fix}`;
  }
  if (kind === 'folder' && (st.mode & 0o022) !== 0) {
    return `${what} ${path} can be written by others (mode ${(st.mode & 0o777).toString(8)}); refusing to use it: run chmod 700 ${path}`;
  }
  return undefined;
}
