/**
 * The built CLI run as a user runs it (`npm run build` first): a real child
 * process with its own explicit environment (test-env.ts), its exit code and both streams once it
 * has ended ('close', so the last chunk is in).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { testEnv } from './test-env.js';

/** The built CLI's path. */
export const TAI_CLI = fileURLToPath(new URL('../../dist/src/cli.js', import.meta.url));

/** How one run of the CLI ended. */
export interface TaiRun {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/** Runs `tai ARGS` with `env` added to the tests' own environment (test-env.ts, never the caller's) and `input` (or nothing) on stdin. */
export function runTai(args: readonly string[], env: NodeJS.ProcessEnv = {}, input?: string): Promise<TaiRun> {
  const child = spawn(process.execPath, [TAI_CLI, ...args], { env: testEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  child.stdin.end(input ?? '');
  const deadline = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(deadline);
      resolve({ code: code ?? -1, out, err });
    }),
  );
}

/** A run of the CLI still going: its process, its stderr so far, and how it ends. */
export interface StartedTai {
  readonly child: ChildProcess;
  /** What it printed on stderr so far. */
  err(): string;
  readonly done: Promise<TaiRun>;
}

/** Starts `tai ARGS` (environment as runTai's) without waiting for it; `detached` makes it a process group's leader (so a test can kill it with its git children). */
export function startTai(args: readonly string[], env: NodeJS.ProcessEnv = {}, options: { detached?: boolean } = {}): StartedTai {
  const child = spawn(process.execPath, [TAI_CLI, ...args], { env: testEnv(env), stdio: ['ignore', 'pipe', 'pipe'], detached: options.detached === true });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const deadline = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const done = new Promise<TaiRun>((resolve) =>
    child.on('close', (code) => {
      clearTimeout(deadline);
      resolve({ code: code ?? -1, out, err });
    }),
  );
  return { child, err: () => err, done };
}
