/**
 * `tai spawn --host NAME -- ARGV...` turned into a local command agent: the
 * host checked, its shared connection up, and the argv the `command` runner
 * runs (the wrapper, remote-run.ts, around ssh and the host's reaper). The
 * panel, clocks and stops are the local ones; the label carries the host.
 */
import { BadHostError, checkHost } from '../../core/remote/host-name.js';
import { REMOTE_CLOCKS, type RemoteClocks } from '../../core/remote/remote-reaper.js';
import { UnquotableWordError } from '../../core/remote/sh-quote.js';
import { ControlDirError } from './control-dir.js';
import { agentArgv } from './ssh-argv.js';
import { ensureMaster, HostUnreachableError, placeOf } from './ssh-master.js';
import { REMOTE_RUN_SCRIPT } from './remote-run.js';

/** Exit code of `tai spawn` when the host cannot be reached (EX_UNAVAILABLE). */
export const HOST_UNREACHABLE_EXIT = 69;

/** What a remote spawn runs locally. */
export interface RemoteSpawn {
  /** The local argv: node, the wrapper, the host, ssh's argv. */
  readonly argv: string[];
  /** The label, with the host: `command sleep @build`. */
  readonly label: string;
}

/** Why a remote spawn cannot start: the message and `tai spawn`'s exit code. */
export interface RemoteRefusal {
  readonly message: string;
  readonly exitCode: number;
}

/** The lost grace from TAI_REMOTE_GRACE (seconds), else the default. */
export function remoteClocks(env: NodeJS.ProcessEnv): RemoteClocks {
  const grace = Number(env['TAI_REMOTE_GRACE']);
  return Number.isInteger(grace) && grace > 0 ? { ...REMOTE_CLOCKS, lostGraceS: grace } : REMOTE_CLOCKS;
}

/** The local argv and label of `argv` run on `host`, or why not (64: bad input, 69: unreachable). */
export async function remoteSpawn(host: string, argv: readonly string[], label: string, cwd: string | undefined, env: NodeJS.ProcessEnv): Promise<RemoteSpawn | RemoteRefusal> {
  try {
    const place = placeOf(checkHost(host), env);
    const ssh = agentArgv(place, argv, remoteClocks(env), cwd ?? '');
    await ensureMaster(place);
    return { argv: [process.execPath, REMOTE_RUN_SCRIPT, host, '--', ...ssh], label: `${label} @${host}` };
  } catch (err) {
    if (err instanceof BadHostError || err instanceof UnquotableWordError) return { message: err.message, exitCode: 64 };
    if (err instanceof HostUnreachableError || err instanceof ControlDirError) return { message: err.message, exitCode: HOST_UNREACHABLE_EXIT };
    throw err;
  }
}
