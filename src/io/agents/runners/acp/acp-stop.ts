/**
 * Stopping an ACP agent: the soft stop is `session/cancel`; closing ends the connection, its stdin, then SIGTERM,
 * then KILL, each after a grace, resolving once the reaper exited. A host's agent ends only by its stdin's end or
 * the wrapper's SIGTERM (docs/remote.md), hence both before the KILL.
 */
import type { GroupChild } from '../process-group.js';
import type { Connected } from './acp-connect.js';

/** How long a closed session's agent has to end on its stdin's end (then on a SIGTERM) before the next step. */
const CLOSE_GRACE_MS = 2_000;

/**
 * A host agent's time between its SIGTERM and the KILL: its wrapper waits for ssh to carry the exit's ack, and a
 * KILL before that leaves the job's folder on the host for its lost grace.
 */
export const REMOTE_KILL_GRACE_MS = 10_000;

/** Resolves once `exited` settles or `ms` passed, whichever is first. */
function endsWithin(exited: Promise<unknown>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    void exited.then(() => (clearTimeout(timer), resolve()));
  });
}

/** Sends session/cancel for `sessionId` once connected; a failure to send is nothing to report (the hard stop follows). */
export function cancelSession(ready: Promise<Connected>, sessionId: string): void {
  void ready.then(({ sdk, connection }) => connection.agent.notify(sdk.methods.agent.session.cancel, { sessionId })).catch(() => {});
}

/** Ends the connection and the process group; resolves once the reaper has exited. `killGraceMs`: after the SIGTERM. */
export async function closeGroup(group: GroupChild, ready: Promise<Connected>, killGraceMs = CLOSE_GRACE_MS): Promise<void> {
  (await ready).connection.close();
  group.stdin.end();
  await endsWithin(group.exited, CLOSE_GRACE_MS);
  // A reaper that has exited took its group with it; never signal a pgid that may be reused.
  const running = (): boolean => group.reaper.exitCode === null && group.reaper.signalCode === null;
  // The soft stop before the KILL: an agent on a host slow to end is then stopped there, its job ended, not left to the host's grace.
  if (running()) group.signal('SIGTERM');
  await endsWithin(group.exited, killGraceMs);
  if (running()) group.kill();
  await group.exited;
}
