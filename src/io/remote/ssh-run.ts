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

/**
 * Runs an ssh argv with `input` (a file for the host) or none on stdin, killed after `timeoutMs`. Without input it
 * may start a master that keeps the pipes, so it is waited for by its exit; with input, by its pipes' close.
 */
export function runSsh(argv: readonly string[], timeoutMs = 20_000, input?: Buffer): Promise<SshRun> {
  const [file, ...args] = argv;
  return new Promise((resolve) => {
    const program = file ?? 'ssh';
    const child = input === undefined ? spawn(program, args, { stdio: ['ignore', 'pipe', 'pipe'] }) : spawn(program, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    if (input !== undefined) {
      // A host that stops reading (the script failed early) closes the pipe: its answer says why.
      child.stdin?.on('error', () => {});
      child.stdin?.end(input);
    }
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve({ code: -1, stdout, stderr: `cannot run ssh: ${err.message}` });
    });
    if (input !== undefined) {
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code: code ?? -1, stdout, stderr });
      });
      return;
    }
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
