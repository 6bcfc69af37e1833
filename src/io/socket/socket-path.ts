/**
 * Where a cockpit's control socket lives, and the checks that keep it
 * private: `$XDG_RUNTIME_DIR/tai/tai-<pid>.sock`, or `/tmp/tai-<uid>/` when
 * XDG_RUNTIME_DIR is unset. The folder must be a real directory (not a
 * symlink), owned by the user and closed to everyone else (0700), the way
 * tmux checks its socket folder; anything else is refused, never repaired,
 * because another user could have made it. Sockets of processes that are
 * gone are removed so the folder does not fill up.
 */
import { chmodSync, lstatSync, mkdirSync, readdirSync, unlinkSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { messageOf } from '../../core/errors.js';

/** Why a socket folder or path cannot be used; the message says what to do. */
export class SocketPathError extends Error {
  override readonly name = 'SocketPathError';
}

const SOCKET_NAME = /^tai-(\d+)\.sock$/;

/** The user id, or 0 on platforms without one. */
function uid(): number {
  return typeof process.getuid === 'function' ? process.getuid() : 0;
}

/** The folder that holds this user's cockpit sockets. */
export function socketDir(env: NodeJS.ProcessEnv = process.env): string {
  const runtime = env['XDG_RUNTIME_DIR'];
  return runtime ? join(runtime, 'tai') : join('/tmp', `tai-${uid()}`);
}

/** The socket path of the cockpit with process id `pid`. */
export function socketPath(pid: number = process.pid, dir: string = socketDir()): string {
  return join(dir, `tai-${pid}.sock`);
}

/** Creates the folder 0700 if missing; refuses one that is not a private directory of this user. */
export function ensureSocketDir(dir: string): void {
  try {
    mkdirSync(dir, { mode: 0o700 });
    chmodSync(dir, 0o700);
  } catch (err) {
    if (!isCode(err, 'EEXIST')) throw new SocketPathError(`cannot create the socket folder ${dir}: ${messageOf(err)}`);
  }
  const st = lstatSync(dir);
  if (!st.isDirectory()) throw new SocketPathError(`the socket folder ${dir} is not a directory; remove it and start tai again`);
  if (st.uid !== uid()) {
    throw new SocketPathError(`the socket folder ${dir} belongs to user ${st.uid}, not to you (${uid()}); refusing to use it`);
  }
  if ((st.mode & 0o077) !== 0) {
    throw new SocketPathError(
      `the socket folder ${dir} is open to others (mode ${(st.mode & 0o777).toString(8)}); run: chmod 700 ${dir}`,
    );
  }
}

/** True when a process with this id exists (signal 0 probes without sending anything). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return isCode(err, 'EPERM');
  }
}

/** True when something accepts connections on `path`. */
export function socketLive(path: string, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = connect(path);
    const done = (live: boolean): void => {
      clearTimeout(timer);
      sock.destroy();
      resolve(live);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    sock.once('connect', () => done(true));
    sock.once('error', () => done(false));
  });
}

/**
 * Makes `path` free to listen on: a socket left by a dead server is removed;
 * a live one, or a file that is not a socket, is refused.
 */
export async function clearStaleSocket(path: string): Promise<void> {
  let isSocket: boolean;
  try {
    isSocket = lstatSync(path).isSocket();
  } catch (err) {
    if (isCode(err, 'ENOENT')) return;
    throw err;
  }
  if (!isSocket) throw new SocketPathError(`${path} exists and is not a socket; refusing to replace it`);
  if (await socketLive(path)) throw new SocketPathError(`another cockpit is already serving ${path}`);
  unlinkSync(path);
}

/** Removes the sockets of cockpits whose process is gone; returns how many. */
export function sweepDeadSockets(dir: string): number {
  let removed = 0;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    const m = SOCKET_NAME.exec(name);
    if (!m || processAlive(Number(m[1]))) continue;
    try {
      if (lstatSync(join(dir, name)).isSocket()) {
        unlinkSync(join(dir, name));
        removed++;
      }
    } catch {
      // Gone already, or not ours to remove: either way nothing to do.
    }
  }
  return removed;
}

/** The sockets in `dir` whose cockpit process is alive, newest process id last. */
export function liveSockets(dir: string = socketDir()): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .map((name) => ({ name, m: SOCKET_NAME.exec(name) }))
    .filter((e): e is { name: string; m: RegExpExecArray } => e.m !== null && processAlive(Number(e.m[1])))
    .sort((a, b) => Number(a.m[1]) - Number(b.m[1]))
    .map((e) => join(dir, e.name));
}

function isCode(err: unknown, code: string): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === code;
}
