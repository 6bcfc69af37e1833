/**
 * The stored cockpits as commands outside one see them (docs/restore.md): `tai ls` lists the restorable, `tai attach
 * NAME` restores one or says why not, `tai kill` marks one ended on purpose. A database that cannot be opened leaves
 * the command as it was, without a restore.
 */
import { join } from 'node:path';
import { openStateDb, stateDir, STATE_DB_FILE, type StateDb } from '../storage/state-db.js';
import { foreignCockpit, foreignMessage, restorableCockpits, thisOwner, type Restorable } from './cockpit-claim.js';
import { RestoreStore } from './restore-store.js';

/** True unless restoring is turned off: `--no-restore`, or TAI_RESTORE=0 (docs/restore.md, "The default"). */
export function restoreWanted(env: NodeJS.ProcessEnv, noRestore: boolean | undefined): boolean {
  return noRestore !== true && env.TAI_RESTORE !== '0';
}

/** Runs `fn` on the restore store of `env`'s state database; undefined when the database cannot be opened. */
function withStore<T>(env: NodeJS.ProcessEnv, fn: (store: RestoreStore) => T): T | undefined {
  let db: StateDb;
  try {
    db = openStateDb(join(stateDir(env), STATE_DB_FILE), { busyTimeoutMs: 1_000 });
  } catch {
    return undefined;
  }
  try {
    return fn(new RestoreStore(db));
  } catch {
    return undefined;
  } finally {
    db.close();
  }
}

/** The cockpits a `tai -s NAME` or `tai attach NAME` would restore, but those `running`. */
export function cockpitsToRestore(env: NodeJS.ProcessEnv, running: ReadonlySet<string>): readonly Restorable[] {
  return withStore(env, (store) => restorableCockpits(store, thisOwner(), running)) ?? [];
}

/** What `tai attach NAME` finds of a cockpit that is not running: one to restore, one of another machine or user, or nothing. */
export function storedCockpit(env: NodeJS.ProcessEnv, name: string): { readonly restore: Restorable } | { readonly refused: string } | undefined {
  return withStore(env, (store) => {
    const me = thisOwner();
    const mine = restorableCockpits(store, me, new Set()).find((r) => r.cockpit.name === name);
    if (mine !== undefined) return { restore: mine };
    const foreign = foreignCockpit(store, me, name);
    return foreign === undefined ? undefined : { refused: foreignMessage(foreign, me) };
  });
}

/** Marks the running cockpit of process `pid` ended on purpose (tai kill of a cockpit in one process: its SIGTERM is no crash). */
export function markEndedOnPurpose(env: NodeJS.ProcessEnv, pid: number, now: number): void {
  withStore(env, (store) => {
    const run = store.runOfPid(pid);
    if (run !== undefined) store.setState(run, 'ended', now, ['running']);
  });
}

/** Marks the stored cockpit `name` (not running) ended, so it is not restored: `tai kill NAME` of one `tai ls` lists to restore. */
export function discardRestore(env: NodeJS.ProcessEnv, name: string, now: number): Restorable | undefined {
  return withStore(env, (store) => {
    const found = restorableCockpits(store, thisOwner(), new Set()).find((r) => r.cockpit.name === name);
    if (found !== undefined) store.setState(found.cockpit.run, 'ended', now, ['running', 'restoring']);
    return found;
  });
}
