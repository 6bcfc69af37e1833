/**
 * One connection per host, shared by every agent on it: a ControlMaster in
 * the background, started by tai (not under any agent's reaper, so no
 * agent's end takes it down) and kept ControlPersist seconds after its last
 * session. Agents connect with ControlMaster=no: through the master when it
 * is up, on a connection of their own when it is not.
 */
import { ControlDirError, controlDir, controlSocket } from './control-dir.js';
import { checkArgv, masterArgv, type SshPlace } from './ssh-argv.js';
import { lastLine, runSsh } from './ssh-run.js';

/** A host that ssh cannot reach (it does not answer, refuses the key, ...). */
export class HostUnreachableError extends Error {
  override readonly name = 'HostUnreachableError';
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
  throw new HostUnreachableError(`cannot reach ${place.host} over ssh: ${why}; see what it lacks with: tai hosts check ${place.host}`);
}

export { ControlDirError };
