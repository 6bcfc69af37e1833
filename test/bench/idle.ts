/**
 * The cockpit at rest against tmux, side by side in one run: eight sessions
 * at once, each in a pty of the same size that this benchmark reads as the
 * terminal would (idle processes do not compete, so running them together
 * keeps the run short):
 * - tai with no agent (`tai -- sleep`) and tmux with one pane (`sleep`);
 * - tai with 8 silent agents (`tai demo --agents silent*8`) and tmux with a
 *   main pane and 8 panes running the same example agent as text;
 * - both tai sessions again with SERVER_NODE_FLAGS (the server's Node flags);
 * - tmux's 8 panes again with a seconds clock in its status line: tai's headers
 *   show elapsed seconds, so both redraw once a second.
 * After `warm` seconds (start-up, V8's compiling and its memory reducer's
 * first collections), one window of `seconds`: CPU as a share of one core
 * (run time of every thread from /proc/PID/task/N/schedstat, in ns, so that
 * 0.01 % is seen), wake-ups (context switches of every thread) per second,
 * then RSS. tmux counts its server plus its attached client; the agents are
 * counted on neither side. A benchmark reports; it never fails.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { clientSide, delay, rssOf, serverOf, stopTai, terminal, tmuxSession, until } from './cockpit.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const CLI = join(ROOT, 'dist/src/cli.js');
const AGENT = join(ROOT, 'dist/src/demo-agent.js');

/** Options of the idle benchmark. */
export interface IdleBenchOptions {
  readonly quick?: boolean;
}

/** One process's counters so far. */
interface Sample {
  /** Run time of all its threads, seconds. */
  readonly cpu: number;
  /** Context switches of all its threads (each sleep and wake-up is one). */
  readonly switches: number;
}

function sampleOf(pid: number): Sample {
  let cpu = 0;
  let switches = 0;
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return { cpu, switches };
  }
  for (const task of tasks) {
    try {
      cpu += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]) / 1e9;
      const status = readFileSync(`/proc/${pid}/task/${task}/status`, 'utf8');
      for (const m of status.matchAll(/ctxt_switches:\s+(\d+)/g)) switches += Number(m[1]);
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return { cpu, switches };
}

const sum = (pids: readonly number[]): Sample =>
  pids.map(sampleOf).reduce((a, b) => ({ cpu: a.cpu + b.cpu, switches: a.switches + b.switches }), { cpu: 0, switches: 0 });

/** What one side did over the window. */
export interface IdleMeasure {
  /** Percent of one core. */
  readonly cpuPct: number;
  readonly wakeupsPerS: number;
  /** RSS MB at the end of the window (server and client). */
  readonly rss: number;
  /** RSS MB of the server alone. */
  readonly serverRss: number;
}

/** The sessions' measures. */
export interface IdleResult {
  readonly taiNone: IdleMeasure;
  readonly tmuxNone: IdleMeasure;
  readonly tai8: IdleMeasure;
  readonly tmux8: IdleMeasure;
  /** tmux with the same 8 panes and a status line whose clock shows seconds: a redraw a second, as tai's headers. */
  readonly tmux8Clock: IdleMeasure;
  readonly taiNoneFlags: IdleMeasure;
  readonly tai8Flags: IdleMeasure;
  /** 8 silent agents in a cockpit whose client detached: the server alone (with the flags). */
  readonly taiDetached: IdleMeasure;
}

/** Starts the sessions, waits `warm` s, measures `seconds` s, ends them. */
export async function measureIdle(warm: number, seconds: number): Promise<IdleResult> {
  const total = String(warm + seconds + 60);
  // Without the server's Node flags (TAI_SERVER_FLAGS=0), then with them (the default).
  const noFlags = { TAI_SERVER_FLAGS: '0' };
  const taiNone = terminal(process.execPath, [CLI, '--', 'sleep', total], noFlags);
  const tai8 = terminal(process.execPath, [CLI, 'demo', '--agents', 'silent*8', '--rate', '500', '--', 'sleep', total], noFlags);
  const taiNoneFlags = terminal(process.execPath, [CLI, '--', 'sleep', total], {});
  const tai8Flags = terminal(process.execPath, [CLI, 'demo', '--agents', 'silent*8', '--rate', '500', '--', 'sleep', total], {});
  const taiGone = terminal(process.execPath, [CLI, 'demo', '--agents', 'silent*8', '--rate', '500', '--', 'sleep', total]);
  const agent = `sh -c 'exec node ${AGENT} silent --raw --rate 500; sleep 999'`;
  const tmuxNone = await tmuxSession(`tai-idle0-${process.pid}`, `sleep ${total}`, []);
  const tmux8 = await tmuxSession(`tai-idle8-${process.pid}`, `sleep ${total}`, new Array<string>(8).fill(agent));
  // tai's headers show each agent's elapsed seconds (seed 001, 4.2: `Ns` or `MmSSs`), so its screen changes every
  // second; the like-for-like tmux redraws a clock with seconds in its status line every second.
  const clockName = `tai-idle8c-${process.pid}`;
  const tmux8Clock = await tmuxSession(clockName, `sleep ${total}`, new Array<string>(8).fill(agent));
  for (const [option, value] of [['status', 'on'], ['status-interval', '1'], ['status-right', '%H:%M:%S']] as const) {
    spawnSync('tmux', ['-L', clockName, 'set-option', '-g', option, value]);
  }
  await until(() => [tai8, tai8Flags, taiGone].every((t) => t.text.includes('demo silent #8')));
  // Its terminal goes away (SIGHUP to the client): the server and its agents carry on with nobody attached.
  const goneServer = serverOf(taiGone.pty.pid) ?? 0;
  taiGone.pty.kill('SIGHUP');
  await delay(warm * 1000);
  // The server first, as tmux's: the first pid's RSS is the server's alone.
  const withServer = (t: ReturnType<typeof terminal>): number[] => [...[serverOf(t.pty.pid)].filter((p): p is number => p !== undefined), ...clientSide(t.pty.pid)];
  const sides: Record<keyof IdleResult, readonly number[]> = {
    taiNone: withServer(taiNone),
    tmuxNone: [tmuxNone.server, tmuxNone.client.pty.pid],
    tai8: withServer(tai8),
    tmux8: [tmux8.server, tmux8.client.pty.pid],
    tmux8Clock: [tmux8Clock.server, tmux8Clock.client.pty.pid],
    taiNoneFlags: withServer(taiNoneFlags),
    tai8Flags: withServer(tai8Flags),
    taiDetached: [goneServer],
  };
  const keys = Object.keys(sides) as (keyof IdleResult)[];
  const before = keys.map((k) => sum(sides[k]));
  const t0 = performance.now();
  await delay(seconds * 1000);
  const dt = (performance.now() - t0) / 1000;
  const after = keys.map((k) => sum(sides[k]));
  const result = Object.fromEntries(
    keys.map((k, i) => [
      k,
      {
        cpuPct: (100 * (after[i]!.cpu - before[i]!.cpu)) / dt,
        wakeupsPerS: (after[i]!.switches - before[i]!.switches) / dt,
        rss: sides[k].reduce((a, pid) => a + rssOf(pid), 0),
        serverRss: rssOf(sides[k][0] ?? 0),
      },
    ]),
  ) as unknown as IdleResult;
  await Promise.all([stopTai(taiNone), stopTai(tai8), stopTai(taiNoneFlags), stopTai(tai8Flags)]);
  if (goneServer > 0) process.kill(goneServer, 'SIGTERM');
  tmuxNone.kill();
  tmux8.kill();
  tmux8Clock.kill();
  return result;
}

const f = (n: number, d = 2) => (Number.isFinite(n) ? n.toFixed(d) : 'n/a');

/** The idle rows of the cockpit table (measure | tai | tmux | tai / tmux). */
export async function idleRows(quick: boolean): Promise<string[]> {
  const warm = quick ? 10 : 25;
  const seconds = quick ? 10 : 30;
  const r = await measureIdle(warm, seconds);
  const when = `${seconds} s from ${warm} s after the start`;
  return [
    `| idle, no agents, ${when}: % of a core | ${f(r.taiNone.cpuPct, 3)} | ${f(r.tmuxNone.cpuPct, 3)} | |`,
    `| idle, 8 silent agents, same: % of a core | ${f(r.tai8.cpuPct, 3)} | ${f(r.tmux8.cpuPct, 3)} | |`,
    `| idle, 8 silent agents, same, tmux with a seconds clock in its status line (a redraw a second, as tai's elapsed times): % of a core | ${f(r.tai8Flags.cpuPct, 3)} | ${f(r.tmux8Clock.cpuPct, 3)} | |`,
    `| idle, 8 silent agents, detached (server alone), same: % of a core | ${f(r.taiDetached.cpuPct, 3)} | ${f(r.tmux8.cpuPct, 3)} (attached) | |`,
    `| idle, no agents / 8 silent agents: wake-ups a second | ${f(r.taiNone.wakeupsPerS, 1)} / ${f(r.tai8.wakeupsPerS, 1)} | ${f(r.tmuxNone.wakeupsPerS, 1)} / ${f(r.tmux8.wakeupsPerS, 1)} | |`,
    `| RSS MB with no agents | ${f(r.taiNone.rss, 1)} | ${f(r.tmuxNone.rss, 1)} | ${f(r.taiNone.rss / r.tmuxNone.rss, 1)} |`,
    `| RSS MB with 8 panels | ${f(r.tai8.rss, 1)} | ${f(r.tmux8.rss, 1)} | ${f(r.tai8.rss / r.tmux8.rss, 1)} |`,
    `| with SERVER_NODE_FLAGS: idle, no agents / 8 silent agents, % of a core | ${f(r.taiNoneFlags.cpuPct, 3)} / ${f(r.tai8Flags.cpuPct, 3)} | ${f(r.tmuxNone.cpuPct, 3)} / ${f(r.tmux8.cpuPct, 3)} | |`,
    `| with SERVER_NODE_FLAGS: RSS MB with no agents | ${f(r.taiNoneFlags.rss, 1)} | ${f(r.tmuxNone.rss, 1)} | ${f(r.taiNoneFlags.rss / r.tmuxNone.rss, 1)} |`,
    `| with SERVER_NODE_FLAGS: RSS MB with 8 panels | ${f(r.tai8Flags.rss, 1)} | ${f(r.tmux8.rss, 1)} | ${f(r.tai8Flags.rss / r.tmux8.rss, 1)} |`,
    `| the server alone (the cockpit itself), RSS MB with 8 panels: no flags / SERVER_NODE_FLAGS / detached | ${f(r.tai8.serverRss, 1)} / ${f(r.tai8Flags.serverRss, 1)} / ${f(r.taiDetached.serverRss, 1)} | ${f(r.tmux8.serverRss, 1)} | |`,
  ];
}

/** `npm run bench -- idle`: the idle rows alone, as a table. */
export async function run(options: IdleBenchOptions = {}): Promise<void> {
  if (spawnSync('tmux', ['-V']).status !== 0) {
    process.stdout.write('idle bench: tmux is not installed; skipped\n');
    return;
  }
  const quick = options.quick ?? false;
  process.stdout.write(`\n## idle: cockpit vs tmux (160x60${quick ? ', --quick' : ''})\n\n`);
  process.stdout.write('| measure | tai | tmux (server + client) | tai / tmux |\n|---|---|---|---|\n');
  for (const row of await idleRows(quick)) process.stdout.write(`${row}\n`);
}
