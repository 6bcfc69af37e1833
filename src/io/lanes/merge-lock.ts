/**
 * The lock that runs merges into one branch one at a time (docs/lanes.md, "Merging never leaves a checkout
 * mid-merge"): a Unix socket listening on an abstract name (unix(7)). Only one process can listen on it and the
 * kernel frees it when that process dies, however, so a killed merge never blocks the next and no stale file is
 * judged by a reused pid. A waiter that gives up asks the lock for its holder's pid and names it.
 */
import { connect, createServer, type Server } from 'node:net';
import { LaneError } from './lanes.js';
import { sha256Hex } from '../crypto-lazy.js';

/** How long a merge waits for another merge into the same branch. */
export const MERGE_LOCK_WAIT_MS = 30_000;

/** The longest pause between two tries. */
const MAX_PAUSE_MS = 250;

/** The lock's abstract name for `branch` of the repository whose common git folder is `repo`. */
export function mergeLockName(repo: string, branch: string): string {
  const key = sha256Hex(`${repo}\0${branch}`).slice(0, 40);
  return `\0tai-lane-merge-${key}`;
}

/** How to wait for the lock. */
export interface MergeLockWait {
  readonly waitMs?: number;
  /** Told once, when another merge holds the lock: its holder's pid, if it answered. */
  readonly onWait?: (holder: number | undefined) => void;
}

/** Takes the merge lock of `branch`, waiting up to `waitMs`; resolves to its release. */
export async function takeMergeLock(repo: string, branch: string, wait: MergeLockWait = {}): Promise<() => Promise<void>> {
  const name = mergeLockName(repo, branch);
  const waitMs = wait.waitMs ?? MERGE_LOCK_WAIT_MS;
  const deadline = Date.now() + waitMs;
  for (let pause = 10; ; pause = Math.min(pause * 2, MAX_PAUSE_MS)) {
    const server = await listenOn(name);
    if (server) return () => new Promise<void>((resolve) => server.close(() => resolve()));
    if (pause === 10) wait.onWait?.(await holderOf(name));
    if (Date.now() > deadline) {
      const holder = await holderOf(name);
      throw new LaneError(
        `another merge into ${branch} has held the lock for ${Math.round(waitMs / 1000)} s${holder === undefined ? '' : ` (process ${holder})`}: try again when it ends`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

/** Listens on the name; null when another process holds it. */
function listenOn(name: string): Promise<Server | null> {
  return new Promise((resolve, reject) => {
    const server = createServer((socket) => socket.end(`${process.pid}\n`));
    server.once('error', (err: NodeJS.ErrnoException) => (err.code === 'EADDRINUSE' ? resolve(null) : reject(err)));
    server.listen(name, () => {
      // Held for one merge, released in its `finally`: it must not keep the process alive on its own.
      server.unref();
      resolve(server);
    });
  });
}

/** The pid the lock's holder answers with, if it answers within a second. */
function holderOf(name: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    let text = '';
    const socket = connect(name);
    const done = (): void => {
      socket.destroy();
      const pid = Number(text.trim());
      resolve(Number.isInteger(pid) && pid > 0 ? pid : undefined);
    };
    socket.setTimeout(1_000, done);
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    socket.on('end', done);
    socket.on('error', done);
  });
}
