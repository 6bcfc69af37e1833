/**
 * The local side of a remote agent: the program the `command` runner runs
 * for `tai spawn --host` (`node remote-run.js HOST -- ssh ARGS...`). It runs
 * ssh in a process group of its own, so the runner's soft stop (a signal to
 * this group) does not end the connection: it is turned into a `stop` line
 * for the host's reaper instead. It sends a heartbeat line every few
 * seconds, forwards its own stdin (the prompt, steering lines) as `i` lines
 * and its end as `e`, passes ssh's output through untouched and exits with ssh's code
 * (the agent's, or 255 when ssh failed). When this process dies however it
 * dies, ssh's stdin ends and the host's reaper sees its lifeline gone.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { REMOTE_BEAT_S } from '../../core/remote/remote-reaper.js';

/** This file, as the runner's argv names it (the built one under dist/). */
export const REMOTE_RUN_SCRIPT = fileURLToPath(import.meta.url);

/** Exit codes by signal, as a shell reports them. */
const SIGNAL_CODES: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 129, SIGINT: 130, SIGKILL: 137, SIGTERM: 143 };

/** Runs the wrapper: `HOST -- ssh ARGS...`. */
export function main(args: readonly string[]): void {
  const host = args[0] ?? '';
  const ssh = args.slice(args.indexOf('--') + 1);
  const [file, ...rest] = ssh;
  if (args[1] !== '--' || file === undefined) {
    process.stderr.write('tai: usage: remote-run HOST -- ssh ARGS...\n');
    process.exit(64);
  }
  const child = spawn(file, rest, { stdio: ['pipe', 'inherit', 'inherit'], detached: true });
  let stopAsked = false;
  child.stdin.on('error', () => {});
  const send = (line: string): void => {
    if (!child.stdin.destroyed) child.stdin.write(`${line}\n`);
  };
  const beat = setInterval(() => send('.'), REMOTE_BEAT_S * 1000);
  forwardStdin(send);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(sig, () => {
      stopAsked = true;
      send('stop');
    });
  }
  child.on('error', (err) => {
    process.stderr.write(`tai: cannot run ssh for ${host}: ${err.message}\n`);
    process.exit(127);
  });
  child.on('exit', (code, signal) => {
    clearInterval(beat);
    if (code === 255 && !stopAsked) process.stderr.write(`tai: the ssh connection to ${host} failed (exit 255); see what it lacks with: tai hosts check ${host}\n`);
    process.exit(code ?? (signal ? (SIGNAL_CODES[signal] ?? 128) : 1));
  });
}

/** This process's stdin (the prompt, steering lines) to the agent's, as `i` lines, then `e` at its end. */
function forwardStdin(send: (line: string) => void): void {
  let partial = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) send(`i${line}`);
  });
  process.stdin.on('end', () => {
    if (partial !== '') send(`i${partial}`);
    send('e');
  });
  process.stdin.on('error', () => send('e'));
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) main(process.argv.slice(2));
