/**
 * `src/io/launch/`: what tai's launcher (src/bin/tai, a POSIX sh script) and this process say to each other: node
 * sets up, writes the client's argv on fd 3, one argument a line, and exits, and the launcher execs it, so the
 * client takes this process's place (docs/architecture.md, "Client and server"). The shell evaluates nothing.
 */
import { closeSync, openSync, writeSync } from 'node:fs';

/** The launcher's variable naming the pipe for the plan. */
export const EXEC_FD_VARIABLE = 'TAI_EXEC_FD';

/** The launcher's fd only the launcher gave: the one it redirects. */
const LAUNCHER_FD = 3;

let planFd: number | undefined;

/**
 * Takes the launcher's plan pipe, if this process was started by it: the variable removed and the pipe reopened
 * close-on-exec, so no program started here holds it open (the launcher waits for its end).
 */
export function takeExecFd(env: NodeJS.ProcessEnv = process.env): void {
  if (env[EXEC_FD_VARIABLE] === undefined) return;
  const wanted = env[EXEC_FD_VARIABLE] === String(LAUNCHER_FD);
  delete env[EXEC_FD_VARIABLE];
  if (!wanted) return;
  try {
    // Node opens with O_CLOEXEC; the inherited fd 3 is not, so it is closed.
    planFd = openSync(`/dev/fd/${LAUNCHER_FD}`, 'w');
  } catch {
    planFd = undefined;
  }
  try {
    closeSync(LAUNCHER_FD);
  } catch {
    // Not open after all: there is no plan to give.
  }
}

/** True when a launcher waits for a plan from this process. */
export function launcherWaits(): boolean {
  return planFd !== undefined;
}

/** Why an argv cannot travel as lines: an empty argument would vanish, a newline would split it. */
export function planProblem(argv: readonly string[]): string | undefined {
  const bad = argv.find((a) => a === '' || a.includes('\n'));
  return bad === undefined ? undefined : `argument ${JSON.stringify(bad)} cannot be one line`;
}

/**
 * Gives the launcher `argv` to exec once this process exits; false (and the
 * pipe left for nothing) when it cannot, and the caller runs the client itself.
 */
export function handOver(argv: readonly string[]): boolean {
  const fd = planFd;
  if (fd === undefined || argv.length === 0 || planProblem(argv) !== undefined) return false;
  planFd = undefined;
  try {
    writeSync(fd, `${argv.join('\n')}\n`);
    return true;
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}
