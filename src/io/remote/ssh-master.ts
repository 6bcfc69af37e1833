/**
 * One connection per host, shared by its agents: a ControlMaster kept ControlPersist seconds after its last
 * session. Only a supervisor starts it, never a process under an agent's reaper, whose stop would end the master
 * and every session through it; everything else connects with ControlMaster=no (docs/remote.md, "One connection
 * per host").
 */
import { ControlDirError, controlDir, controlSocket } from './control-dir.js';
import { checkArgv, masterArgv, runArgv, type SshPlace } from './ssh-argv.js';
import { lastLine, runSsh } from './ssh-run.js';

/** A host that ssh cannot reach (it does not answer, refuses the key, ...). */
export class HostUnreachableError extends Error {
  override readonly name = 'HostUnreachableError';
  constructor(
    message: string,
    /** ssh's own reason, one line. */
    readonly reason: string,
  ) {
    super(message);
  }
}

/** Where ssh finds `host`'s config and control socket, from the environment. */
export function placeOf(host: string, env: NodeJS.ProcessEnv = process.env): SshPlace {
  const config = env['TAI_SSH_CONFIG'];
  return { host, socket: controlSocket(controlDir(env), host), ...(config ? { config } : {}) };
}

/** Whether the host's master is up. */
export async function masterUp(place: SshPlace): Promise<boolean> {
  return (await runSsh(checkArgv(place), 10_000)).code === 0;
}

/** False in a process under an agent's reaper: it never starts a master (leaveMastersToSupervisor). */
let mayStartMasters = true;

/** Masters being started by this process, by control socket: two spawns at once start one. */
const starting = new Map<string, Promise<void>>();

/**
 * Called under an agent's reaper (a remote agent's wrapper): ensureMaster then only looks, so no master is ever an
 * agent's descendant (the reaper stops every descendant with it).
 */
export function leaveMastersToSupervisor(): void {
  mayStartMasters = false;
}

/**
 * Starts the host's master unless it is up; throws HostUnreachableError with ssh's reason. Does nothing where
 * masters are left to the supervisor: ssh then goes through the master when up, on its own otherwise.
 */
export function ensureMaster(place: SshPlace): Promise<void> {
  if (!mayStartMasters) return Promise.resolve();
  const pending = starting.get(place.socket);
  if (pending !== undefined) return pending;
  const started = startMaster(place).finally(() => starting.delete(place.socket));
  starting.set(place.socket, started);
  return started;
}

async function startMaster(place: SshPlace): Promise<void> {
  if (await masterUp(place)) return;
  // ssh -f puts the master in a session of its own (daemon), so this process's end or group stop leaves it up.
  const run = await runSsh(masterArgv(place));
  if (run.code === 0) return;
  throw unreachable(place.host, lastLine(run.stderr) || `ssh exited ${run.code}`);
}

function unreachable(host: string, why: string): HostUnreachableError {
  return new HostUnreachableError(`cannot reach ${host} over ssh: ${why}; see what it lacks with: tai hosts check ${host}`, why);
}

export { ControlDirError };

/** A host of `tai hosts`: its connection and the round trip of one command through it. */
export interface HostState {
  readonly host: string;
  readonly up: boolean;
  /** Milliseconds of `true` run through the connection, when it is up. */
  readonly rttMs?: number;
}

/** Whether `host`'s shared connection is up, and its round trip. */
export async function hostState(host: string, env: NodeJS.ProcessEnv = process.env): Promise<HostState> {
  const place = placeOf(host, env);
  if (!(await masterUp(place))) return { host, up: false };
  const start = performance.now();
  const run = await runSsh(runArgv(place, 'true'), 10_000);
  return run.code === 0 ? { host, up: true, rttMs: Math.round(performance.now() - start) } : { host, up: false };
}

/**
 * Runs `commandLine` on the host, through its shared connection when up, else on one of its own (a `tai` inside
 * an agent starts no master); its stdout, or HostUnreachableError.
 */
export async function probeHost(host: string, commandLine: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const run = await runSsh(runArgv(placeOf(host, env), commandLine));
  if (run.code === 255 || run.code === -1) throw unreachable(host, lastLine(run.stderr) || `ssh exited ${run.code}`);
  return run.stdout;
}
