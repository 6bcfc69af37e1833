/**
 * The program every remote agent's runner starts, of any kind (`node remote-agent.js PLACE_JSON -- ARGV...`): the
 * agent's argv stays in the runner's argv word by word, so a runner that reads or extends it works as for a local
 * agent. It turns ARGV into the ssh argv of the host's slot and reaper and runs remote-run.ts on it.
 */
import { fileURLToPath } from 'node:url';
import { REMOTE_CLOCKS, type RemoteClocks } from '../../core/remote/remote-reaper.js';
import { slotAgentArgv, type SshPlace } from './ssh-argv.js';
import { leaveMastersToSupervisor } from './ssh-master.js';
import { main as runRemote } from './remote-run.js';

/** This file, as the runner's argv names it (the built one under dist/). */
export const REMOTE_AGENT_SCRIPT = fileURLToPath(import.meta.url);

/** Where and how the agent runs on the host: what the wrapper's first argument carries. */
export interface RemotePlace {
  readonly place: SshPlace;
  readonly clocks: RemoteClocks;
  /** The folder on the host ('' for the login folder; `~/x` is read as x under it). */
  readonly cwd: string;
}

/** The runner's argv of `argv` run at `remote`. */
export function wrapperArgv(remote: RemotePlace, argv: readonly string[]): string[] {
  return [process.execPath, REMOTE_AGENT_SCRIPT, JSON.stringify(remote), '--', ...argv];
}

/** The host a runner's argv runs its agent on (the wrapper's argv of wrapperArgv), or undefined for a local agent. */
export function hostOfWrapper(argv: readonly string[]): string | undefined {
  // By name as well as by path: a restored launch names the wrapper of the build that started it.
  if (argv[3] !== '--' || (argv[1] !== REMOTE_AGENT_SCRIPT && !argv[1]?.endsWith('/remote-agent.js'))) return undefined;
  return readPlace(argv[2])?.place.host;
}

/** A folder of a registry entry or --cwd as the host's shell will `cd` to it: `~/x` relative to the login folder. */
export function hostCwd(cwd: string | undefined): string {
  if (cwd === undefined || cwd === '~') return '';
  return cwd.startsWith('~/') ? cwd.slice(2) : cwd;
}

/** Runs the wrapper: `PLACE_JSON -- ARGV...`. */
export async function main(args: readonly string[]): Promise<void> {
  const remote = readPlace(args[0]);
  const argv = args.slice(2);
  if (remote === undefined || args[1] !== '--' || argv.length === 0) {
    process.stderr.write('tai: usage: remote-agent PLACE_JSON -- ARGV...\n');
    process.exit(64);
  }
  // This process runs under the agent's reaper: the master is its supervisor's to start (ssh-master.ts).
  leaveMastersToSupervisor();
  // The native reaper on the host when it can be there (src/io/host-reaper/), the sh reaper alone otherwise.
  const { hostReaper, reaperPrefix } = await import('../host-reaper/host-reaper.js');
  const reaper = reaperPrefix(await hostReaper(remote.place));
  runRemote([remote.place.host, '--', ...slotAgentArgv(remote.place, [...reaper, ...argv], remote.clocks, remote.cwd)], { graceS: remote.clocks.lostGraceS });
}

function readPlace(text: string | undefined): RemotePlace | undefined {
  try {
    const v = JSON.parse(text ?? '') as Partial<RemotePlace>;
    if (typeof v.place?.host !== 'string' || typeof v.place.socket !== 'string' || typeof v.cwd !== 'string') return undefined;
    return { place: v.place, clocks: { ...REMOTE_CLOCKS, ...v.clocks }, cwd: v.cwd };
  } catch {
    return undefined;
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) void main(process.argv.slice(2));
