/**
 * One ssh run with bytes on its stdin (a file sent to the host), waited for
 * by its exit; the sibling of src/io/remote/ssh-run.ts, which sends none.
 */
import { spawn } from 'node:child_process';
import type { SshRun } from '../remote/ssh-run.js';

/** Runs an ssh argv with `input` as its stdin; kills it after `timeoutMs`. */
export function runSshWithInput(argv: readonly string[], input: Buffer, timeoutMs = 60_000): Promise<SshRun> {
  const [file, ...args] = argv;
  return new Promise((resolve) => {
    const child = spawn(file ?? 'ssh', args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    // A host that stops reading (the script failed early) closes the pipe: its answer says why.
    child.stdin.on('error', () => {});
    child.stdin.end(input);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve({ code: -1, stdout, stderr: `cannot run ssh: ${err.message}` });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}
