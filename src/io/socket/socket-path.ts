/**
 * Where a cockpit's control socket lives and the checks that keep it private (docs/security.md, "Who can reach
 * the socket"): a folder that is a real directory, the user's, closed to others, as tmux checks its own; anything
 * else is refused, never repaired, as another user could have made it. A refused cockpit listens in the fallback
 * folder and says so; gone processes' sockets are removed.
 */
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, unlinkSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { messageOf } from '../../core/errors.js';
import { stateDir } from '../storage/state-dir.js';

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
  checkSocketDir(dir);
}

/**
 * The one check of a socket folder, by the cockpit before it listens and the client before it trusts a socket: a
 * real directory (lstat), this user's, closed to others, or another user could listen in it and read what the
 * client sends (docs/security.md, "Who can reach the socket").
 */
export function checkSocketDir(dir: string): void {
  const st = lstatSync(dir);
  if (!st.isDirectory()) throw new SocketPathError(`the socket folder ${dir} is not a directory; remove it and start tai again`);
  if (st.uid !== uid()) {
    throw new SocketPathError(
      `the socket folder ${dir} belongs to user ${st.uid}, not to you (${uid()}); refusing to use it: ` +
        'another user may be listening there. Have it removed (it is not yours to remove), or set XDG_RUNTIME_DIR to a folder of your own',
    );
  }
  if ((st.mode & 0o077) !== 0) {
    throw new SocketPathError(
      `the socket folder ${dir} is open to others (mode ${(st.mode & 0o777).toString(8)}); refusing to use it: ` +
        `run chmod 700 ${dir} (and remove any socket in it you did not make)`,
    );
  }
}

/**
 * Where a cockpit puts its socket when the usual folder is refused, and the client looks too: `stateDir()/sockets`
 * (tai's state folder is the user's own).
 */
export function fallbackSocketDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(stateDir(env), 'sockets');
}

/** The longest socket path the kernel takes (sun_path is 108 bytes with its NUL). */
const SOCKET_PATH_MAX_BYTES = 107;

/** A socket path the cockpit may listen on, and what it had to say about getting it. */
export interface SocketPlace {
  readonly path: string;
  /** Set when the requested folder was refused and another was used: show it to the user. */
  readonly warning?: string;
  /** A folder made just for this socket (mkdtemp), removed with it. */
  readonly ownDir?: string;
}

/**
 * The requested path when its folder is safe, else its name in the fallback folder (or a fresh mkdtemp folder when
 * that path is too long for a socket), with a warning saying why and where. Nothing refused is repaired or removed.
 */
export function claimSocketPlace(requested: string, env: NodeJS.ProcessEnv = process.env): SocketPlace {
  try {
    ensureSocketDir(dirname(requested));
    return { path: requested };
  } catch (err) {
    if (!(err instanceof SocketPathError)) throw err;
    const name = basename(requested);
    let place: SocketPlace;
    try {
      const dir = fallbackSocketDir(env);
      mkdirSync(dirname(dir), { recursive: true, mode: 0o700 });
      ensureSocketDir(dir);
      const path = join(dir, name);
      if (Buffer.byteLength(path) <= SOCKET_PATH_MAX_BYTES) place = { path };
      else {
        const own = mkdtempSync(join(tmpdir(), `tai-${uid()}-`));
        place = { path: join(own, name), ownDir: own };
      }
    } catch (fallbackErr) {
      throw new SocketPathError(`${err.message}; no other place either: ${messageOf(fallbackErr)}`);
    }
    const found = place.ownDir === undefined ? 'tai finds it there' : 'only the main pane (TAI_PLEXER_SOCKET) and --socket reach it';
    return { ...place, warning: `${err.message}. The control socket is at ${place.path} instead (${found})` };
  }
}

/**
 * True when a process with this id exists (signal 0) and is not a zombie (/proc's state `Z`): a server killed
 * with SIGKILL stays in the table until reaped, but its card and sockets are stale from its death.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return isCode(err, 'EPERM');
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true; // no /proc here: the signal's answer stands
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

/** A server's link socket (src/io/link/), swept with the control sockets. */
const LINK_NAME = /^tai-(\d+)\.link$/;

/** Removes the sockets (control and link) of cockpits whose process is gone; returns how many. */
export function sweepDeadSockets(dir: string): number {
  let removed = 0;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    const m = SOCKET_NAME.exec(name) ?? LINK_NAME.exec(name);
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

/**
 * The sockets in `dir` whose cockpit lives, newest pid last; only this user's socket files count (a folder once
 * open to others may hold someone else's). The caller checks the folder first.
 */
export function liveSockets(dir: string = socketDir()): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .map((name) => ({ name, m: SOCKET_NAME.exec(name) }))
    .filter((e): e is { name: string; m: RegExpExecArray } => e.m !== null && processAlive(Number(e.m[1])) && ownedByUser(join(dir, e.name), 'socket'))
    .sort((a, b) => Number(a.m[1]) - Number(b.m[1]))
    .map((e) => join(dir, e.name));
}

/** What the client found: the live sockets in safe folders, and the folders it refused. */
export interface FoundSockets {
  readonly live: readonly string[];
  readonly refused: readonly SocketPathError[];
}

/**
 * The user's live cockpits, in the usual and the fallback folder, each checked as the cockpit checks it
 * (checkSocketDir); a missing folder is skipped, one that fails is refused whole.
 */
export function findLiveSockets(env: NodeJS.ProcessEnv = process.env): FoundSockets {
  const live: string[] = [];
  const refused: SocketPathError[] = [];
  for (const dir of new Set([socketDir(env), fallbackSocketDir(env)])) {
    try {
      checkSocketDir(dir);
    } catch (err) {
      if (isCode(err, 'ENOENT') || isCode(err, 'ENOTDIR')) continue;
      refused.push(err instanceof SocketPathError ? err : new SocketPathError(`the socket folder ${dir} cannot be checked: ${messageOf(err)}`));
      continue;
    }
    live.push(...liveSockets(dir));
  }
  return { live, refused };
}

/** True when `path` is a socket (or, with 'file', a regular file) of this user; a symlink is neither. */
export function ownedByUser(path: string, kind: 'socket' | 'file'): boolean {
  try {
    const st = lstatSync(path);
    return (kind === 'socket' ? st.isSocket() : st.isFile()) && st.uid === uid();
  } catch {
    return false;
  }
}

function isCode(err: unknown, code: string): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === code;
}
