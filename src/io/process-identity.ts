/**
 * A process's identity across processes: its pid and start time, so a pid since given to another program is not
 * taken for the one stored. The start time is /proc/PID/stat's field 22 (proc(5)), read after the last `)` as the
 * name may hold spaces and parentheses; without /proc only the pid is probed.
 */
import { readFileSync, readlinkSync } from 'node:fs';
import { pidAlive } from './storage/agents-store.js';

/** /proc reports times in USER_HZ ticks, 100 a second on every Linux architecture (proc(5)). */
const TICKS_PER_S = 100;

/** How far a process's start read from /proc may be from the start it recorded itself (clock steps, exec to Node's start). */
export const START_SLACK_MS = 10_000;

/** A process as stored: its pid and its start time (`starttime` of /proc/PID/stat, or null where /proc is missing). */
export interface ProcessIdentity {
  readonly pid: number;
  readonly start: string | null;
}

/** Field 22 of /proc/PID/stat (the process's start in ticks since boot), or undefined when there is no such process or no /proc. */
export function processStart(pid: number): string | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // Fields after the name start at field 3 (state): field 22 is the 20th of them.
  const start = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  return start !== undefined && /^\d+$/.test(start) ? start : undefined;
}

/** The identity of a running process, or undefined when it is gone. */
export function identityOf(pid: number): ProcessIdentity | undefined {
  const start = processStart(pid);
  if (start !== undefined) return { pid, start };
  return hasProc() || !pidAlive(pid) ? undefined : { pid, start: null };
}

/** True while the very process of `identity` runs (its pid alive with the same start time). */
export function sameProcessAlive(identity: ProcessIdentity): boolean {
  if (!(Number.isInteger(identity.pid) && identity.pid > 0)) return false;
  if (identity.start === null || !hasProc()) return pidAlive(identity.pid);
  return processStart(identity.pid) === identity.start;
}

/**
 * True while process `pid` runs and started within START_SLACK_MS of `startedAtMs` (wall-clock ms, as a run key
 * holds it: `<pid>-<start ms>`); without /proc, only the pid is probed.
 */
export function startedNear(pid: number, startedAtMs: number): boolean {
  if (!(Number.isInteger(pid) && pid > 0)) return false;
  if (!hasProc()) return pidAlive(pid);
  const start = processStart(pid);
  const boot = bootTimeMs();
  if (start === undefined) return false;
  if (boot === undefined || !Number.isFinite(startedAtMs)) return true;
  return Math.abs(boot + (Number(start) * 1000) / TICKS_PER_S - startedAtMs) <= START_SLACK_MS;
}

/** When the process `pid` started (wall-clock ms), or undefined when it is gone or /proc is missing. */
export function startedAtMs(pid: number): number | undefined {
  const start = processStart(pid);
  const boot = bootTimeMs();
  return start === undefined || boot === undefined ? undefined : boot + (Number(start) * 1000) / TICKS_PER_S;
}

/** The directory the process `pid` runs in (/proc/PID/cwd), or undefined when it cannot be read (gone, not ours, no /proc). */
export function processCwd(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return undefined;
  }
}

/** When the machine booted (wall-clock ms): `btime` of /proc/stat. */
function bootTimeMs(): number | undefined {
  try {
    const btime = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1];
    return btime === undefined ? undefined : Number(btime) * 1000;
  } catch {
    return undefined;
  }
}

function hasProc(): boolean {
  return processStart(process.pid) !== undefined;
}
