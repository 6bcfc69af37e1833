/**
 * `src/io/host-holds/`: a remote agent held while its host's link is lost (docs/remote.md, "Held during a lost
 * link"). This file: the hold files, `PID.json` kept by the agent's local side while it waits. A file, not a line
 * of output: every kind reads its output with its own protocol, while the file reads the same for all, for the
 * cockpit, `tai status`, `tai outage status` and `tai report`.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stateDir } from '../storage/state-dir.js';
import { processAlive as alive } from '../socket/socket-path.js';

/** One agent's hold, as its local side writes it. Times are epoch ms. */
export interface HostHold {
  readonly host: string;
  /** The local side's pid: its panel's process group. */
  readonly pid: number;
  /** When the link was lost. */
  readonly since: number;
  /** The host's outage file (src/io/remote/host-outage.ts), for its next probe. */
  readonly outageFile: string;
  /** A stop was asked while the link is down: it waits for the host. */
  readonly stopPending?: boolean;
  /** The host stops the agent itself at this time if tai does not return (its lost grace), when known. */
  readonly hostStopsAt?: number;
}

/** The panel a cockpit holds for a hold file (written beside it by the cockpit). */
export interface HoldPanel {
  readonly panel: number;
  readonly label: string;
}

/** A hold and the panel held for it, if a cockpit holds one. */
export type HeldAgent = HostHold & { readonly panel?: HoldPanel };

/** The folder of the hold files of state folder `state`. */
export function holdsDirOf(state: string): string {
  return join(state, 'ssh', 'held');
}

/** The folder of the hold files. */
export function holdsDir(env: NodeJS.ProcessEnv = process.env): string {
  return holdsDirOf(stateDir(env));
}

function atomicWrite(file: string, text: string): void {
  writeFileSync(`${file}.${process.pid}.t`, text, { mode: 0o600 });
  renameSync(`${file}.${process.pid}.t`, file);
}

/** Writes (or rewrites) this process's hold. */
export function writeHold(hold: HostHold, dir: string = holdsDir()): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  atomicWrite(join(dir, `${hold.pid}.json`), JSON.stringify(hold));
}

/** Ends the hold of `pid` (its panel file too). */
export function clearHold(pid: number, dir: string = holdsDir()): void {
  rmSync(join(dir, `${pid}.json`), { force: true });
  rmSync(join(dir, `${pid}.panel`), { force: true });
}

/** Says which panel a cockpit holds for the hold of `pid`. */
export function writeHoldPanel(pid: number, panel: HoldPanel, dir: string = holdsDir()): void {
  try {
    atomicWrite(join(dir, `${pid}.panel`), JSON.stringify(panel));
  } catch {
    // The hold ended meanwhile (its folder may be gone): nothing to say.
  }
}

function readJson<T>(file: string): T | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/** The holds of live processes, oldest first; a dead process's hold (SIGKILLed while it waited) is removed. */
export function readHolds(dir: string = holdsDir()): HeldAgent[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => /^\d+\.json$/.test(name));
  } catch {
    return [];
  }
  const holds: HeldAgent[] = [];
  for (const name of names) {
    const hold = readJson<HostHold>(join(dir, name));
    if (hold === undefined || typeof hold.host !== 'string' || typeof hold.pid !== 'number') continue;
    if (!alive(hold.pid)) {
      clearHold(hold.pid, dir);
      continue;
    }
    const panel = readJson<HoldPanel>(join(dir, `${hold.pid}.panel`));
    holds.push(panel === undefined ? hold : { ...hold, panel });
  }
  return holds.sort((a, b) => a.since - b.since);
}
