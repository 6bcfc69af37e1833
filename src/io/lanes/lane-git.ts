/**
 * git in a child process, asynchronously: every lane command and the panel's
 * diff stat run git through here, never on the board's hot path and never
 * blocking the event loop. Output is bounded; a git that hangs is killed.
 */
import { execFile } from 'node:child_process';

/** A git command here may take this long before it is killed. */
export const LANE_GIT_TIMEOUT_MS = 60_000;

/** The most output one git command may print (a whole diff). */
const MAX_OUTPUT = 256 * 1024 * 1024;

/** What a git command printed and how it ended. */
export interface GitRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A git command that failed where it must not; the message has git's own words. */
export class GitError extends Error {
  override readonly name = 'GitError';
  constructor(readonly args: readonly string[], readonly run: GitRun) {
    super(`git ${args.join(' ')} failed (exit ${run.code}): ${run.stderr.trim() || run.stdout.trim() || 'no output'}`);
  }
}

/** Runs `git ARGS` in `cwd`; resolves with its exit code (never rejects on a non-zero exit). */
export function git(cwd: string, args: readonly string[], env?: NodeJS.ProcessEnv): Promise<GitRun> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      [...args],
      { cwd, timeout: LANE_GIT_TIMEOUT_MS, maxBuffer: MAX_OUTPUT, encoding: 'utf8', env: { ...(env ?? process.env), GIT_TERMINAL_PROMPT: '0' } },
      (err, stdout, stderr) => {
        if (err && typeof err.code !== 'number') {
          // Not an exit status: git is missing, or it was killed.
          if (err.killed || err.signal) resolve({ code: 128, stdout, stderr: stderr || `killed (${err.signal ?? 'timeout'})` });
          else reject(err);
          return;
        }
        resolve({ code: err ? Number(err.code) : 0, stdout, stderr });
      },
    );
  });
}

/** Runs `git ARGS` in `cwd` and returns its stdout; throws GitError on a non-zero exit. */
export async function gitOk(cwd: string, args: readonly string[], env?: NodeJS.ProcessEnv): Promise<string> {
  const run = await git(cwd, args, env);
  if (run.code !== 0) throw new GitError(args, run);
  return run.stdout;
}
