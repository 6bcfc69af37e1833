/**
 * The load of the day-long soak (day-soak.ts), as a user would drive a
 * cockpit from outside it: agents started with `tai spawn -t NAME` that
 * stream and end, one after the other in each slot; ACP agents that stream,
 * ask permission and end, their questions answered with `tai ask answer`
 * a few seconds after they appear; a client attached in a pty of its own and
 * detached with prefix + d. Every process gets the soak's own environment.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pty from 'node-pty';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
export const CLI = join(ROOT, 'dist/src/cli.js');
const DEMO_AGENT = join(ROOT, 'dist/src/demo-agent.js');
const ASK_AGENT = join(ROOT, 'test/fixtures/acp-soak-agent.mjs');

/**
 * The whole environment of every process the soak starts: nothing of the
 * caller's (its colours, prefix, state folders or cockpit) leaks in.
 */
export function soakEnv(dir: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: join(dir, 'home'),
    XDG_STATE_HOME: join(dir, 'state'),
    XDG_RUNTIME_DIR: join(dir, 'run'),
    XDG_CONFIG_HOME: join(dir, 'config'),
    XDG_DATA_HOME: join(dir, 'data'),
    XDG_CACHE_HOME: join(dir, 'cache'),
    TERM: 'xterm-256color',
    LANG: 'C.UTF-8',
    SHELL: '/bin/sh',
    NODE_ENV: 'production',
  };
}

/** What the load did so far. */
export interface LoadCounts {
  started: number;
  ended: number;
  /** `tai spawn` runs that did not end 0 (refused, failed, cancelled). */
  failed: number;
  answered: number;
}

/** One kind of agent a slot starts, again and again. */
export type SlotKind = 'stream' | 'ask';

/** Options of the load. */
export interface LoadOptions {
  readonly name: string;
  readonly env: Record<string, string>;
  readonly cwd: string;
  readonly slots: readonly SlotKind[];
  /** Seconds a started agent streams (a slot's agents vary around it). */
  readonly agentSeconds: number;
  readonly rate: number;
  /** Seconds a question waits before it is answered, as a person would. */
  readonly answerAfterS: number;
}

/** The load running; `stop` lets every agent started finish and resolves then. */
export interface Load {
  readonly counts: LoadCounts;
  stop(): Promise<void>;
}

/** The command line of the `n`th agent of a slot of `kind`: each lives a little longer or shorter than the last. */
function agentArgs(o: LoadOptions, kind: SlotKind, slot: number, n: number): string[] {
  const seconds = String(Math.round(o.agentSeconds * (0.5 + ((n * 7 + slot * 3) % 10) / 10)));
  const label = ['--label', `soak ${kind} ${slot}.${n}`];
  if (kind === 'stream') return ['spawn', '-t', o.name, ...label, '--stdin', '--', process.execPath, DEMO_AGENT, 'stream', '--raw', '--rate', String(o.rate), '--seconds', seconds];
  return ['spawn', '-t', o.name, ...label, '--kind', 'acp', '--permissions', 'ask', '--prompt', 'edit the notes', '--', process.execPath, ASK_AGENT, '--rate', String(o.rate), '--seconds', seconds];
}

/** Starts every slot's first agent and the answering of questions. */
export function startLoad(o: LoadOptions): Load {
  const counts: LoadCounts = { started: 0, ended: 0, failed: 0, answered: 0 };
  const running = new Set<ChildProcess>();
  let stopping = false;
  const startIn = (slot: number, n: number): void => {
    if (stopping) return;
    const kind = o.slots[slot]!;
    const child = spawn(process.execPath, [CLI, ...agentArgs(o, kind, slot, n)], { cwd: o.cwd, env: o.env, stdio: 'ignore' });
    counts.started++;
    running.add(child);
    child.on('close', (code) => {
      running.delete(child);
      counts.ended++;
      if (code !== 0) counts.failed++;
      // A short pause between one agent's end and the next's start, as a lead agent's loop would have.
      setTimeout(() => startIn(slot, n + 1), 1000);
    });
  };
  o.slots.forEach((_, slot) => setTimeout(() => startIn(slot, 0), slot * 1500));
  const answering = setInterval(() => void answerDue(o, counts), 2000);
  return {
    counts,
    stop: async () => {
      stopping = true;
      while (running.size > 0) {
        await answerDue(o, counts);
        await new Promise((r) => setTimeout(r, 1000));
      }
      clearInterval(answering);
    },
  };
}

/** Runs `tai ARGS` in the soak's environment; its stdout, or undefined when it failed. */
export function tai(o: Pick<LoadOptions, 'env' | 'cwd'>, args: readonly string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { cwd: o.cwd, env: o.env, maxBuffer: 64 << 20 }, (err, stdout) => resolve(err ? undefined : stdout));
  });
}

/** Answers (allow once) every open question that has waited at least answerAfterS. */
async function answerDue(o: LoadOptions, counts: LoadCounts): Promise<void> {
  const listed = await tai(o, ['ask', '-t', o.name, '--json']);
  if (listed === undefined) return;
  const rows = JSON.parse(listed) as { qid: string; open: boolean; waitedMs: number }[];
  for (const row of rows) {
    if (!row.open || row.waitedMs < o.answerAfterS * 1000) continue;
    if ((await tai(o, ['ask', 'answer', '-t', o.name, row.qid, 'allow-once'])) !== undefined) counts.answered++;
  }
}

/** What one attach showed: milliseconds to its first status line (undefined if none came in 20 s). */
export interface AttachResult {
  readonly firstFrameMs: number | undefined;
  readonly detached: boolean;
}

/**
 * Attaches a client in a pty of its own (160x60), holds it `holdMs` while it
 * draws, and detaches it with prefix + d (the default prefix, Ctrl-]).
 */
export async function attachOnce(o: Pick<LoadOptions, 'name' | 'env' | 'cwd'>, holdMs: number): Promise<AttachResult> {
  const t0 = performance.now();
  const p = pty.spawn(process.execPath, [CLI, 'attach', o.name], { name: 'xterm-256color', cols: 160, rows: 60, cwd: o.cwd, env: o.env });
  let text = '';
  let exited = false;
  p.onData((d) => (text = (text + d).slice(-20_000)));
  p.onExit(() => (exited = true));
  const seen = await waitFor(() => text.includes(`tai ${o.name}`), 20_000);
  const firstFrameMs = seen ? performance.now() - t0 : undefined;
  await new Promise((r) => setTimeout(r, holdMs));
  p.write('\x1dd');
  const detached = await waitFor(() => exited, 20_000);
  if (!exited) p.kill('SIGKILL');
  return { firstFrameMs, detached };
}

/** True once `check` holds, false after `timeoutMs`. */
export async function waitFor(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}
