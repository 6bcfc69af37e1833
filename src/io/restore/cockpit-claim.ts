/**
 * Which cockpit a name restores (docs/restore.md, "Restoring"): the user's newest run of it here that ended without
 * a deliberate end, its process gone. The claim and the new run's row go in one immediate transaction, so of two
 * racing `tai attach NAME` the second finds it taken.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { sameProcessAlive, startedNear } from '../process-identity.js';
import { processAlive } from '../socket/socket-path.js';
import type { RestoreStore, StoredCockpit, StoredLaunch } from './restore-store.js';

/** The machine and user a cockpit ran as: a restore anywhere else is refused. */
export interface Owner {
  readonly machine: string;
  readonly uid: number;
}

/** This machine (/etc/machine-id, else the host name) and this user. */
export function thisOwner(): Owner {
  let machine = '';
  try {
    machine = readFileSync('/etc/machine-id', 'utf8').trim();
  } catch {
    // No machine id (not systemd): the host name.
  }
  return { machine: machine || `host:${hostname()}`, uid: typeof process.getuid === 'function' ? process.getuid() : 0 };
}

/** What a claim found. */
export type Claim =
  | { readonly kind: 'none' }
  | { readonly kind: 'claimed'; readonly from: StoredCockpit; readonly launches: readonly StoredLaunch[] }
  | { readonly kind: 'taken'; readonly by: string }
  | { readonly kind: 'foreign'; readonly message: string };

/** True while the run `run` (`<pid>-<start ms>`) has its process. */
export function runAlive(run: string | null): boolean {
  if (run === null) return false;
  const [pid, start] = run.split('-');
  return processAlive(Number(pid)) && startedNear(Number(pid), Number(start));
}

/** True while the cockpit's process runs (its pid with the start it recorded). */
export function cockpitAlive(c: StoredCockpit): boolean {
  // A zombie is gone: its process has ended, only its parent has not yet been told.
  return processAlive(c.pid) && sameProcessAlive({ pid: c.pid, start: c.start });
}

/** True when the cockpit ended without a deliberate end and nobody restores it now. */
export function restorable(c: StoredCockpit): boolean {
  if (c.state === 'running') return !cockpitAlive(c);
  return c.state === 'restoring' && !runAlive(c.claimedBy);
}

/** Why a cockpit of another machine or user is not restored here. */
export function foreignMessage(c: StoredCockpit, me: Owner): string {
  const where = c.machine === me.machine ? `by another user (uid ${c.uid})` : `on another machine (machine id ${c.machine})`;
  return `cockpit ${c.name} was recorded ${where}: it is not restored here. Nothing of it is changed; restore it where it ran, or use another name with -s`;
}

/**
 * Records `self` (this cockpit's run) and, when `restore`, claims the newest
 * restorable run of the same name: all in one transaction.
 */
export function claimCockpit(store: RestoreStore, self: StoredCockpit, restore: boolean): Claim {
  return store.atomically((): Claim => {
    const me: Owner = { machine: self.machine, uid: self.uid };
    const runs = store.cockpitsNamed(self.name).filter((c) => c.run !== self.run);
    store.addCockpit(self);
    if (!restore) return { kind: 'none' };
    const [newest] = runs.filter((c) => c.machine === me.machine && c.uid === me.uid);
    if (newest !== undefined && newest.state === 'restoring' && runAlive(newest.claimedBy)) return { kind: 'taken', by: newest.claimedBy ?? '' };
    if (newest !== undefined && restorable(newest)) {
      store.setState(newest.run, 'restoring', self.startedAt, ['running', 'restoring'], self.run);
      return { kind: 'claimed', from: newest, launches: store.liveLaunches(newest.run) };
    }
    const [foreign] = runs.filter((c) => (c.machine !== me.machine || c.uid !== me.uid) && (c.state === 'running' || c.state === 'restoring'));
    if (foreign !== undefined && (newest === undefined || foreign.startedAt > newest.startedAt)) return { kind: 'foreign', message: foreignMessage(foreign, me) };
    return { kind: 'none' };
  });
}

/** A restorable cockpit for `tai ls` and `tai attach`: its newest run and how many agents it would restore. */
export interface Restorable {
  readonly cockpit: StoredCockpit;
  readonly agents: number;
}

/** The cockpits of this machine and user that a `tai -s NAME` or `tai attach NAME` would restore, by name; `running` names are skipped. */
export function restorableCockpits(store: RestoreStore, me: Owner, running: ReadonlySet<string>): Restorable[] {
  const names = new Set(store.openCockpits().map((c) => c.name));
  const found: Restorable[] = [];
  for (const name of names) {
    if (running.has(name)) continue;
    const [newest] = store.cockpitsNamed(name).filter((c) => c.machine === me.machine && c.uid === me.uid);
    if (newest !== undefined && restorable(newest)) found.push({ cockpit: newest, agents: store.liveLaunches(newest.run).length });
  }
  return found;
}

/** The newest run named `name` of another machine or user that is not ended, for the refusal of `tai attach NAME`. */
export function foreignCockpit(store: RestoreStore, me: Owner, name: string): StoredCockpit | undefined {
  return store.cockpitsNamed(name).find((c) => (c.machine !== me.machine || c.uid !== me.uid) && (c.state === 'running' || c.state === 'restoring'));
}
