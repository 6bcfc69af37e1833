/**
 * The cockpit's memory beside tmux's (the cockpit bench's `memory` measure):
 * 8 silent agents, attached, read after the idle collection (60 s after the
 * start), every process of the cockpit summed by RSS, by PSS and by its
 * private pages (/proc/PID/smaps_rollup; Held says how each counts a shared page):
 * - process agents: `tai -s NAME` (src/bin/tai, its native client in the
 *   terminal), then 8 `tai spawn -t NAME -- sleep` as a user starts them,
 *   each behind its reaper: server, client side and the 8 reapers (the
 *   agents' own `sleep` is the user's program, not counted);
 * - demo agents (`tai demo --agents silent*8`, run by the server, no
 *   reapers), by src/bin/tai and by node on cli.js (a node waiting on the
 *   native client);
 * - tmux: server and client, a main pane and 8 panes of the same example
 *   agent as text.
 * One at a time, never at once: they would compete for the two cores.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cockpitProcesses, delay, rssOf, stopNamed, terminal, tmuxSession, until } from './cockpit.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const CLI = join(ROOT, 'dist/src/cli.js');
const LAUNCHER = join(ROOT, 'src/bin/tai');
const AGENT = join(ROOT, 'dist/src/demo-agent.js');
const AGENTS = 8;

/** How long after the agents start memory is read: the idle collection runs 10 s after the last output; a loaded machine starts slower. */
const MEMORY_WAIT_MS = 60_000;

/** Fields of /proc/PID/smaps_rollup in MB: Pss, and Private_Clean + Private_Dirty (pages no other process maps); 0 once it is gone. */
export function sharesOf(pid: number): { pss: number; own: number } {
  try {
    const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0);
    return { pss: kb('Pss') / 1024, own: (kb('Private_Clean') + kb('Private_Dirty')) / 1024 };
  } catch {
    return { pss: 0, own: 0 };
  }
}

/**
 * MB of a group of processes: RSS counts a shared page (node's binary, libc) in every process that maps it; PSS
 * divides it among all its mappers, this machine's other node processes too; own counts only pages no other maps.
 */
interface Held {
  readonly rss: number;
  readonly pss: number;
  readonly own: number;
}

/** A tai cockpit's processes: server, client side, reapers (with how many), and all of them. */
interface CockpitMemory {
  readonly server: Held;
  readonly client: Held;
  readonly reapers: Held;
  readonly reaperCount: number;
  readonly all: Held;
}

/** RSS, PSS and own pages of `pids`, summed. */
function held(pids: readonly number[]): Held {
  const shares = pids.map(sharesOf);
  return { rss: pids.reduce((a, p) => a + rssOf(p), 0), pss: shares.reduce((a, s) => a + s.pss, 0), own: shares.reduce((a, s) => a + s.own, 0) };
}

let started = 0;

/** The memory of the cockpit on the terminal `tai` named `name`, then the cockpit ended. */
async function readCockpit(tai: ReturnType<typeof terminal>, name: string): Promise<CockpitMemory> {
  const p = cockpitProcesses(tai.pty.pid, name);
  const m = { server: held(p.server), client: held(p.client), reapers: held(p.reapers), reaperCount: p.reapers.length, all: held([...p.server, ...p.client, ...p.reapers]) };
  await stopNamed(tai, name);
  return m;
}

/** 8 silent demo agents, run by the server, tai started by `how`. */
async function demoMemory(how: 'launcher' | 'node'): Promise<CockpitMemory> {
  const name = `bench-mem-${process.pid}-${++started}`;
  const line = ['demo', '-s', name, '--agents', `silent*${AGENTS}`, '--rate', '500', '--', 'sleep', '120'];
  const tai = how === 'launcher' ? terminal(LAUNCHER, line) : terminal(process.execPath, [CLI, ...line]);
  await until(() => tai.text.includes(`demo silent #${AGENTS}`));
  await delay(MEMORY_WAIT_MS);
  return readCockpit(tai, name);
}

/** 8 silent command agents (`sleep`), each started by `tai spawn` as a user starts one, each behind its reaper. */
async function processMemory(): Promise<CockpitMemory> {
  const name = `bench-mem-${process.pid}-${++started}`;
  const tai = terminal(LAUNCHER, ['-s', name, '--', 'sleep', '180']);
  await until(() => cockpitProcesses(tai.pty.pid, name).server.length === 1);
  const spawn = (i: number) =>
    spawnSync(process.execPath, [CLI, 'spawn', '-t', name, '--kind', 'command', '--detach', '--label', `silent ${i}`, '--', 'sleep', '170'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, NODE_ENV: 'production' },
    });
  // The first waits until the cockpit answers on its control socket (its server is up before it listens).
  for (let i = 1; i <= AGENTS; i++) {
    let r = spawn(i);
    if (i === 1) await until(() => r.status === 0 || (r = spawn(i)).status === 0);
    if (r.status !== 0) process.stderr.write(`memory bench: tai spawn failed (${r.status}): ${r.stderr.trim()}\n`);
  }
  await until(() => cockpitProcesses(tai.pty.pid, name).reapers.length === AGENTS);
  await delay(MEMORY_WAIT_MS);
  return readCockpit(tai, name);
}

/** tmux's server and client with a main pane and 8 panes of silent agents, as long after the start as tai is read. */
async function tmuxMemory(): Promise<Held> {
  const name = `tai-bench-mem-${process.pid}`;
  const agentCmd = `node ${AGENT} silent --raw --rate 500; sleep 999`;
  const tmux = await tmuxSession(name, 'sleep 120', new Array<string>(AGENTS).fill(agentCmd));
  await delay(MEMORY_WAIT_MS);
  const m = held([tmux.server, tmux.client.pty.pid]);
  tmux.kill();
  return m;
}

const f = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : 'n/a');
const ratio = (a: number, b: number) => (b > 0 ? f(a / b) : 'n/a');

/** The rows of the `memory` measure in the cockpit bench's table. */
export async function memoryRows(): Promise<string[]> {
  const processes = await processMemory();
  const launcher = await demoMemory('launcher');
  const waiting = await demoMemory('node');
  const tmux = await tmuxMemory();
  const parts = (m: CockpitMemory, k: keyof Held) =>
    `server ${f(m.server[k])}, client ${f(m.client[k])}${m.reaperCount > 0 ? `, ${m.reaperCount} reapers ${f(m.reapers[k])}` : ''}`;
  const row = (what: string, m: CockpitMemory, k: keyof Held) =>
    `| ${what} | ${f(m.all[k])} (${parts(m, k)}) | ${f(tmux[k])} | ${ratio(m.all[k], tmux[k])} |`;
  const head = `${AGENTS} silent agents, attached, after the idle collection`;
  return [
    row(`${head}, each a process (\`tai spawn -- sleep\`) behind its reaper: RSS MB of every process of the cockpit`, processes, 'rss'),
    row('same: PSS MB (a shared page divided among the processes that map it)', processes, 'pss'),
    row('same: MB of pages no other process maps (private)', processes, 'own'),
    row(`${head}, demo agents (run by the server, no reapers), tai by src/bin/tai: RSS MB`, launcher, 'rss'),
    row('same: PSS MB', launcher, 'pss'),
    row('same: private MB', launcher, 'own'),
    row('same, tai by node on cli.js (node waits on the native client): RSS MB', waiting, 'rss'),
  ];
}
