/**
 * What a restore does with each agent that was live when its cockpit ended
 * (docs/restore.md): resume it (a kind that can, with the session id it
 * reported), or show it ended with the cockpit and how to start it again; the
 * wall clock it has left; the main program's own way to continue.
 */
import type { Launch } from './launch.js';

/** The kinds whose runners take `resume` (claude `--resume`, codex `exec resume`, ACP `session/load`). */
export const RESUMABLE_KINDS: readonly string[] = ['claude', 'codex', 'acp'];

/** The one message a resumed agent gets. */
export const INTERRUPTED_PROMPT =
  'Your session was interrupted: the tai cockpit supervising you ended (a crash, a signal or a reboot) and has restored you. ' +
  'Go on with your task from where you left off; check the state of your work first, since your last step may not have finished.';

/** The line that marks the seam in a restored panel, between the old transcript and what follows. */
export const SEAM = '── restored after the cockpit ended ──';

/** How a program or folder compares with what it was at the agent's start. */
export type Sameness = 'same' | 'gone' | 'changed' | 'unknown';

/** What a restore does with one agent. */
export type RestoreStep =
  | { readonly action: 'resume'; readonly remainingMs: number; readonly notes: readonly string[] }
  | { readonly action: 'ended'; readonly why: string; readonly notes: readonly string[] };

/** The wall clock an agent has spent: before its attempt, then from its attempt's start to the cockpit's last sign of life. */
export function spentMs(launch: Launch, attemptStartedAt: number, lastAliveAt: number): number {
  return launch.spentMs + Math.max(0, lastAliveAt - attemptStartedAt);
}

/**
 * What to do with one live agent of an ended cockpit: `program` and `dir` say
 * how its program and folder compare with its start.
 */
export function restoreStep(launch: Launch, spent: number, program: Sameness, dir: Sameness): RestoreStep {
  const notes: string[] = [];
  if (program === 'changed') notes.push(`its program ${launch.program?.path ?? launch.argv[0] ?? ''} changed since it started (updated or replaced): the same argv runs it`);
  if (dir === 'gone') return { action: 'ended', why: `its folder ${launch.cwd ?? ''} no longer exists, so it was not started again`, notes };
  if (dir === 'changed') return { action: 'ended', why: `its folder ${launch.cwd ?? ''} is not the one it started in (removed and made again since), so it was not started again`, notes };
  if (program === 'gone') return { action: 'ended', why: `its program ${launch.program?.path ?? launch.argv[0] ?? ''} no longer exists, so it was not started again`, notes };
  const remaining = launch.limitMs - spent;
  if (remaining <= 0) return { action: 'ended', why: `its wall clock of ${Math.round(launch.limitMs / 1000)} s had run out`, notes };
  if (!RESUMABLE_KINDS.includes(launch.kind)) return { action: 'ended', why: `a ${launch.kind} agent cannot resume a session`, notes };
  if (launch.sessionId === undefined) return { action: 'ended', why: 'it had not reported a session id to resume', notes };
  return { action: 'resume', remainingMs: remaining, notes };
}

/** The panel's line for an agent that ended with the cockpit. */
export function endedLine(id: number, why: string): string {
  return `ended with the cockpit: ${why}. tai restart ${id} starts it again from its stored launch`;
}

/**
 * The main program started again: a registered agent CLI with its own way to continue its last conversation
 * (`claude --continue`, `codex resume --last`); any other program as it was.
 */
export function continueArgv(argv: readonly string[]): readonly string[] {
  const [program, ...args] = argv;
  if (program === undefined) return argv;
  const name = program.slice(program.lastIndexOf('/') + 1);
  if (name === 'claude' && !args.some((a) => ['-c', '--continue', '-r', '--resume', '-p', '--print'].includes(a))) return [program, '--continue', ...args];
  if (name === 'codex' && args.length === 0) return [program, 'resume', '--last'];
  return argv;
}

/** An environment for display: names kept, values masked (the stored one is whole). */
export function maskedEnv(env: Readonly<Record<string, string>> | undefined): string {
  if (env === undefined) return '';
  return Object.keys(env)
    .map((k) => `${k}=[hidden]`)
    .join(' ');
}

/** Why the board stops every agent when its cockpit ends (store's shutdown). */
export const COCKPIT_EXITING = 'the cockpit is exiting';

/** Why the board stops every agent when the cockpit crashes on an uncaught error. */
export const COCKPIT_CRASHED = 'tai crashed';

/** True when an agent's end reason says its cockpit's end stopped it: it stays restorable. */
export function endsWithCockpit(reason: string): boolean {
  return reason.startsWith(COCKPIT_EXITING) || reason.startsWith(COCKPIT_CRASHED);
}
