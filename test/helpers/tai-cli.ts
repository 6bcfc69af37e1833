/**
 * The built CLI run as a user runs it (`npm run build` first): a real child
 * process with its own environment, its exit code and both streams once it
 * has ended ('close', so the last chunk is in).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The built CLI's path. */
export const TAI_CLI = fileURLToPath(new URL('../../dist/src/cli.js', import.meta.url));

/** How one run of the CLI ended. */
export interface TaiRun {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/** Runs `tai ARGS` with `env` added to this process's environment and `input` (or nothing) on stdin. */
export function runTai(args: readonly string[], env: NodeJS.ProcessEnv = {}, input?: string): Promise<TaiRun> {
  const child = spawn(process.execPath, [TAI_CLI, ...args], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
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
