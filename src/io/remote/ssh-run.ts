/**
 * Running ssh once and waiting for it: the master's start, `-O check`, a
 * probe. Waits on the exit, not on the pipes: a master that goes to the
 * background may keep them open.
 */
import { spawn } from 'node:child_process';

/** How one ssh run ended. */
export interface SshRun {
  /** ssh's exit code (255: ssh itself failed), or -1 when it could not start or timed out. */
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs an ssh argv with no stdin; kills it after `timeoutMs`. */
export function runSsh(argv: readonly string[], timeoutMs = 20_000): Promise<SshRun> {
  const [file, ...args] = argv;
  return new Promise((resolve) => {
    const child = spawn(file ?? 'ssh', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve({ code: -1, stdout, stderr: `cannot run ssh: ${err.message}` });
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      // The background master holds the pipes: read what is there now and let go of them.
      setImmediate(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        resolve({ code: code ?? -1, stdout, stderr });
      });
    });
  });
}

/** ssh's last line of complaint, for a one-line message. */
export function lastLine(text: string): string {
  return text.trim().split('\n').at(-1)?.trim() ?? '';
}
