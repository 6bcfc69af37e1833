/**
 * `src/io/remote/`: the remote agents' adapters (docs/remote.md): `ssh` run with an argv, never a local shell
 * string, one shared connection per host, the local wrapper, `tai hosts`' checks. This file: tai's own 0700 folder
 * of control sockets, each beside a `.host` file naming its host (a socket's name is a hash: socket paths are short).
 */
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stateDir } from '../storage/state-dir.js';
import { sha256Hex } from '../crypto-lazy.js';

/** A socket path's limit (sun_path is 108 bytes with its NUL; ssh adds a temporary suffix while it binds). */
const SOCKET_PATH_MAX = 80;

/** The control folder cannot be used. */
export class ControlDirError extends Error {
  override readonly name = 'ControlDirError';
}

/** The folder of the control sockets: `<state>/ssh`, made 0700 if it is not. */
export function controlDir(env: NodeJS.ProcessEnv = process.env): string {
  const dir = join(stateDir(env), 'ssh');
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // An existing folder others can reach would let them use the connections: make it tai's own.
    if ((statSync(dir).mode & 0o077) !== 0) chmodSync(dir, 0o700);
  } catch (err) {
    throw new ControlDirError(`cannot make the ssh control folder ${dir}: ${(err as Error).message}; set XDG_STATE_HOME to a folder you own`);
  }
  return dir;
}

/** The control socket of `host` in `dir`, its host recorded beside it for `tai hosts`. */
export function controlSocket(dir: string, host: string): string {
  const name = sha256Hex(host).slice(0, 16);
  const socket = join(dir, name);
  if (Buffer.byteLength(socket) > SOCKET_PATH_MAX) {
    throw new ControlDirError(`the ssh control socket ${socket} is too long for a socket path; set XDG_STATE_HOME to a shorter folder`);
  }
  writeFileSync(`${socket}.host`, host, { mode: 0o600 });
  return socket;
}

/** The hosts tai has connected to from this state folder, by name. */
export function knownHosts(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((name) => name.endsWith('.host'))
    .map((name) => readFileSync(join(dir, name), 'utf8'))
    .sort();
}
