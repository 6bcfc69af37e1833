/**
 * One connection per host, shared by every agent on it: a ControlMaster in
 * the background, started by tai (not under any agent's reaper, so no
 * agent's end takes it down) and kept ControlPersist seconds after its last
 * session. Agents connect with ControlMaster=no: through the master when it
 * is up, on a connection of their own when it is not.
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

/** Starts the host's master unless it is up; throws HostUnreachableError with ssh's reason. */
export async function ensureMaster(place: SshPlace): Promise<void> {
  if (await masterUp(place)) return;
  const run = await runSsh(masterArgv(place));
  if (run.code === 0) return;
  const why = lastLine(run.stderr) || `ssh exited ${run.code}`;
  throw new HostUnreachableError(`cannot reach ${place.host} over ssh: ${why}; see what it lacks with: tai hosts check ${place.host}`, why);
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

/** Runs `commandLine` on the host (through its connection, started if needed); its stdout, or HostUnreachableError. */
export async function probeHost(host: string, commandLine: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const place = placeOf(host, env);
  await ensureMaster(place);
  const run = await runSsh(runArgv(place, commandLine));
  const why = lastLine(run.stderr) || 'exit 255';
  if (run.code === 255) throw new HostUnreachableError(`ssh to ${host} failed: ${why}`, why);
  return run.stdout;
}
