/**
 * The ssh command lines tai runs, each an argv: the host checked first
 * (src/core/remote/host-name.ts) and always after `--`, so it is never an
 * option; BatchMode, so ssh never asks at a terminal nobody watches; the
 * user's config, or `TAI_SSH_CONFIG` (-F) when set (the tests' own sshd).
 */
import { checkHost } from '../../core/remote/host-name.js';
import { slotCommandLine } from '../../core/remote/host-slots.js';
import { remoteCommandLine, type RemoteClocks } from '../../core/remote/remote-reaper.js';

/** Where ssh finds its config and tai its control socket for one host. */
export interface SshPlace {
  readonly host: string;
  /** The control socket (control-dir.ts). */
  readonly socket: string;
  /** An ssh config file to use instead of the user's (-F). */
  readonly config?: string;
}

/** Seconds ssh waits for a host before it gives up. */
export const CONNECT_TIMEOUT_S = 10;

function common(place: SshPlace, master: 'yes' | 'no'): string[] {
  return [
    ...(place.config === undefined ? [] : ['-F', place.config]),
    '-o', 'BatchMode=yes',
    '-o', `ConnectTimeout=${CONNECT_TIMEOUT_S}`,
    '-o', `ControlPath=${place.socket}`,
    '-o', `ControlMaster=${master}`,
    // A dead connection is noticed in about 15 s even when no packet says so.
    '-o', 'ServerAliveInterval=5',
    '-o', 'ServerAliveCountMax=3',
    '-o', 'LogLevel=ERROR',
  ];
}

/** The shared connection: a master in the background that stays `persistS` seconds after its last session. */
export function masterArgv(place: SshPlace, persistS = 600): string[] {
  return ['ssh', ...common(place, 'yes'), '-o', `ControlPersist=${persistS}`, '-N', '-f', '--', checkHost(place.host)];
}

/** Asks the master whether it is up (`ssh -O check`): exit 0 when it is. */
export function checkArgv(place: SshPlace): string[] {
  return ['ssh', ...common(place, 'no'), '-O', 'check', '--', checkHost(place.host)];
}

/** Ends the master (`ssh -O exit`). */
export function exitArgv(place: SshPlace): string[] {
  return ['ssh', ...common(place, 'no'), '-O', 'exit', '--', checkHost(place.host)];
}

/** Runs one shell command line on the host (a probe), through the master when it is up. */
export function runArgv(place: SshPlace, commandLine: string): string[] {
  return ['ssh', ...common(place, 'no'), '-T', '--', checkHost(place.host), commandLine];
}

/** An agent's argv run on the host under the remote reaper. */
export function agentArgv(place: SshPlace, argv: readonly string[], clocks?: RemoteClocks, cwd?: string): string[] {
  return runArgv(place, remoteCommandLine(argv, clocks, cwd));
}

/** An agent's argv run on the host in one of the host's own slots (src/core/remote/host-slots.ts), under the remote reaper. */
export function slotAgentArgv(place: SshPlace, argv: readonly string[], clocks?: RemoteClocks, cwd?: string): string[] {
  return runArgv(place, slotCommandLine(remoteCommandLine(argv, clocks, cwd), place.host));
}
