/**
 * Every agent runs in its own process group behind a tiny reaper, so a hard stop kills the agent and all it
 * started, and no agent outlives its supervisor, even one killed with SIGKILL: the reaper's lifeline pipe ends
 * when the supervisor dies, at once and unmissably (Node has no PR_SET_PDEATHSIG). The native and node reapers
 * and what each kills: docs/agents.md, "Process groups and orphans" and "The reaper".
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { withPacedPipes } from '../paced-read.js';
import { currentReaper, type ReaperKind } from './reaper-binary.js';

/** The node reaper (the fallback), as a CommonJS script for `node -e`; argv after it is the agent's. */
export const REAPER_SOURCE = `
const { spawn } = require('node:child_process');
const net = require('node:net');
const [file, ...args] = process.argv.slice(1);
let child;
let pending = null;
let killAll = false;
const group = (sig) => { if (child && child.pid) { try { process.kill(-child.pid, sig); } catch {} } };
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => { if (child && child.pid) group(sig); else pending = sig; });
process.on('SIGUSR2', () => { killAll = true; group('SIGKILL'); });
const lifeline = new net.Socket({ fd: 3, readable: true, writable: true });
const gone = () => { killAll = true; group('SIGKILL'); if (!child || !child.pid) process.exit(137); };
lifeline.on('data', () => {});
lifeline.on('end', gone);
lifeline.on('error', gone);
child = spawn(file, args, { stdio: 'inherit', detached: true });
child.on('error', (err) => { process.stderr.write('tai: cannot start ' + file + ': ' + err.message + '\\n'); process.exit(127); });
child.on('spawn', () => {
  try { lifeline.write(child.pid + '\\n'); } catch {}
  if (killAll) group('SIGKILL'); else if (pending) group(pending);
});
child.on('exit', (code, signal) => {
  group('SIGKILL');
  lifeline.destroy();
  if (signal) { process.removeAllListeners(signal); process.kill(process.pid, signal); }
  else process.exit(code === null ? 1 : code);
});
`;

/** How the agent ended, as the supervisor sees it. */
export interface GroupExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** An agent started in its own process group behind a reaper. */
export interface GroupChild {
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** The agent's process group id, once the reaper has reported it. */
  pgid(): number | undefined;
  /** Resolves with the pgid once known, or undefined if the agent never started. */
  readonly started: Promise<number | undefined>;
  /** Settles when the reaper has exited with the agent's status. */
  readonly exited: Promise<GroupExit>;
  /** Sends a signal to the agent's whole group (through the reaper). */
  signal(sig: NodeJS.Signals): void;
  /** Kills the agent's whole group with SIGKILL. */
  kill(): void;
  /** The reaper, for tests. */
  readonly reaper: ChildProcess;
  /** Which reaper it is. */
  readonly reaperKind: ReaperKind;
}

/** Where and how to start the agent. */
export interface GroupOptions {
  readonly cwd?: string;
  readonly env?: Readonly<Record<string, string>>;
  /** Which reaper; by default per TAI_REAPER (reaper-binary.ts). */
  readonly reaper?: ReaperKind;
}

/** Starts `argv` in a new process group behind a reaper with a lifeline to this process. */
export function spawnGroup(argv: readonly string[], options: GroupOptions = {}): GroupChild {
  const [file, ...args] = argv;
  if (file === undefined) throw new Error('nothing to start: the argv is empty');
  const chosen = currentReaper(options.reaper);
  // argv0 'tai-reaper': `ps` shows `tai-reaper FILE ARGS`, not the binary's path.
  const [command, commandArgs, argv0] =
    chosen.kind === 'native' ? [chosen.path, [file, ...args], 'tai-reaper'] : [process.execPath, ['-e', REAPER_SOURCE, file, ...args], undefined];
  // Paced pipes: the runners read the agent's output at the pacer's ticks (src/io/agents/paced-read.ts).
  const reaper = withPacedPipes(() =>
    spawn(command, commandArgs, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
      // Its own group: a Ctrl-C at the supervisor's terminal reaches the supervisor, which decides.
      detached: true,
      ...(argv0 ? { argv0 } : {}),
    }),
  );
  let pgid: number | undefined;
  const lifeline = reaper.stdio[3] as Readable & Writable;
  const started = new Promise<number | undefined>((resolve) => {
    let buf = '';
    lifeline.on('data', (chunk: Buffer) => {
      buf += chunk.toString('utf8');
      const nl = buf.indexOf('\n');
      if (nl >= 0 && pgid === undefined) {
        const n = Number(buf.slice(0, nl));
        if (Number.isInteger(n) && n > 0) pgid = n;
        resolve(pgid);
      }
      if (buf.length > 64) buf = '';
    });
    lifeline.on('error', () => resolve(pgid));
    reaper.on('exit', () => resolve(pgid));
  });
  const exited = new Promise<GroupExit>((resolve) => {
    reaper.on('exit', (code, signal) => resolve({ code, signal }));
    reaper.on('error', () => resolve({ code: 127, signal: null }));
  });
  // Streams of a dead child can still error (EPIPE); the exit status tells the story.
  reaper.stdin?.on('error', () => {});
  lifeline.on('error', () => {});
  void exited.then(() => lifeline.destroy());
  const alive = (): boolean => reaper.exitCode === null && reaper.signalCode === null;
  return {
    stdin: reaper.stdin as Writable,
    stdout: reaper.stdout as Readable,
    stderr: reaper.stderr as Readable,
    pgid: () => pgid,
    started,
    exited,
    reaper,
    reaperKind: chosen.kind,
    signal(sig) {
      if (alive()) reaper.kill(sig);
    },
    kill() {
      if (pgid !== undefined) {
        try {
          process.kill(-pgid, 'SIGKILL');
        } catch {
          // ESRCH: the group is already gone.
        }
      }
      if (alive()) reaper.kill('SIGUSR2');
    },
  };
}

/** The shell exit code for a reaper's exit: the code, or 128 + the signal's number. */
export function exitCodeOf(exit: GroupExit): number {
  if (exit.code !== null) return exit.code;
  const numbers: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15, SIGUSR2: 12 };
  return 128 + (exit.signal ? (numbers[exit.signal] ?? 0) : 0);
}
