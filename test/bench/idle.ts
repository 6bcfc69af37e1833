/**
 * The cockpit at rest against tmux, in rounds of the same two windows each,
 * every session in a pty of the same size that this benchmark reads as the
 * terminal would:
 * 1. tai with no agent (`tai -- sleep`) beside tmux with one pane (`sleep`);
 * 2. tai with 8 silent agents (`tai demo --agents silent*8`) beside tmux with
 *    a main pane, 8 panes running the same example agent as text, and a
 *    seconds clock in its status line: tai's headers show elapsed seconds, so
 *    both redraw once a second;
 * 3. the same cockpit detached (its client gone, the server alone) beside the
 *    same tmux without its clock;
 * 4. both tai sessions without SERVER_NODE_FLAGS (the server's Node flags).
 * tai runs with the server's flags (the default) unless said. In each window
 * (idleRows says where and why): CPU as a share of one core (run time of
 * every thread from /proc/PID/task/N/schedstat, in ns, so that 0.01 % is
 * seen) and wake-ups (context switches of every thread) per second; RSS at
 * the end. tmux counts its server plus its attached client; the agents are
 * counted on neither side. tai is started as a user starts it, by src/bin/tai
 * (the native client in the terminal), each cockpit under a name of its own.
 * A benchmark reports; it never fails.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { clientSide, delay, rssOf, serverNamed, stopNamed, terminal, tmuxSession, until } from './cockpit.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const AGENT = join(ROOT, 'dist/src/demo-agent.js');

/** Options of the idle benchmark. */
export interface IdleBenchOptions {
  readonly quick?: boolean;
}

/** Run time (seconds) and context switches of one thread so far. */
interface ThreadSample {
  readonly cpu: number;
  readonly switches: number;
}

/** Every thread of the processes, by "pid/tid". */
type Sample = Map<string, ThreadSample>;

function sampleOf(pid: number, into: Sample): void {
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return;
  }
  for (const task of tasks) {
    try {
      const cpu = Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]) / 1e9;
      const status = readFileSync(`/proc/${pid}/task/${task}/status`, 'utf8');
      let switches = 0;
      for (const m of status.matchAll(/ctxt_switches:\s+(\d+)/g)) switches += Number(m[1]);
      into.set(`${pid}/${task}`, { cpu, switches });
    } catch {
      // the thread ended between the listing and the read
    }
  }
}

const sample = (pids: readonly number[]): Sample => {
  const out: Sample = new Map();
  for (const pid of pids) sampleOf(pid, out);
  return out;
};

/**
 * What the threads did from `before` to `after`: a thread seen at both reads
 * counts its difference, one started in between all of its time; one that
 * ended in between is left out (its last moments are lost with it), so a
 * thread pool shrinking never makes the sum negative.
 */
function between(before: Sample, after: Sample): { cpu: number; switches: number } {
  let cpu = 0;
  let switches = 0;
  for (const [id, a] of after) {
    const b = before.get(id);
    cpu += a.cpu - (b?.cpu ?? 0);
    switches += a.switches - (b?.switches ?? 0);
  }
  return { cpu, switches };
}

/** What one side did over the windows. */
export interface IdleMeasure {
  /** Percent of one core in the first window. */
  readonly cpuPct: number;
  /** Percent of one core in the second window. */
  readonly laterPct: number;
  /** Wake-ups a second in the first window. */
  readonly wakeupsPerS: number;
  /** Wake-ups a second in the second window (at rest: the panels idle, start-up's collections over). */
  readonly laterWakeupsPerS: number;
  /** RSS MB at the end of the second window (server and client). */
  readonly rss: number;
  /** RSS MB of the server alone. */
  readonly serverRss: number;
}

/** The two windows of a round, in seconds after its sessions started. */
export interface IdleWindows {
  readonly first: { readonly from: number; readonly seconds: number };
  readonly second: { readonly from: number; readonly seconds: number };
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

/** A session of a round: the processes counted (server first), and how it ends. */
export interface Started {
  readonly pids: () => readonly number[];
  readonly end: () => Promise<void>;
}

/** A round's sessions by the measure they give. */
export type Round<K extends string = keyof IdleResult> = Partial<Record<K, () => Promise<Started>>>;

/**
 * Starts a round's sessions together, measures its two windows, ends them.
 * Only a round's sessions run at once, so that each is measured as a user
 * runs it, beside the tmux it is compared with.
 */
export async function measureRound<K extends string>(round: Round<K>, windows: IdleWindows): Promise<{ measures: Partial<Record<K, IdleMeasure>>; steal: [number, number] }> {
  const keys = Object.keys(round) as K[];
  const started = await Promise.all(keys.map((k) => round[k]!()));
  const start = performance.now();
  const at = (s: number) => delay(Math.max(0, start + s * 1000 - performance.now()));
  // Read when the first window opens: a client starts its native client only once it is attached.
  let pids: (readonly number[])[] = [];
  const window = async (w: IdleWindows['first']) => {
    await at(w.from);
    if (pids.length === 0) pids = started.map((s) => s.pids());
    const before = pids.map(sample);
    const steal0 = stealSeconds();
    const t0 = performance.now();
    await at(w.from + w.seconds);
    const dt = (performance.now() - t0) / 1000;
    const steal = (100 * (stealSeconds() - steal0)) / dt;
    const sides = pids.map(sample).map((after, i) => between(before[i]!, after));
    return { steal, sides: sides.map((d) => ({ pct: (100 * d.cpu) / dt, wakeups: d.switches / dt })) };
  };
  const first = await window(windows.first);
  const second = await window(windows.second);
  const rss = pids.map((p) => ({ all: p.reduce((a, pid) => a + rssOf(pid), 0), server: rssOf(p[0] ?? 0) }));
  await Promise.all(started.map((s) => s.end()));
  const measures = Object.fromEntries(
    keys.map((k, i) => [k, { cpuPct: first.sides[i]!.pct, laterPct: second.sides[i]!.pct, wakeupsPerS: first.sides[i]!.wakeups, laterWakeupsPerS: second.sides[i]!.wakeups, rss: rss[i]!.all, serverRss: rss[i]!.server }]),
  );
  return { measures: measures as Partial<Record<K, IdleMeasure>>, steal: [first.steal, second.steal] };
}

/**
 * Seconds of CPU the host took from this virtual machine's cores so far
 * (steal, /proc/stat): a busy host stretches every wake-up measured here.
 */
function stealSeconds(): number {
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
    return Number(cpu[8] ?? 0) / 100; // USER_HZ
  } catch {
    return 0;
  }
}

/** The sessions a round is made of, for the tai tree at `root` (its src/bin/tai and its build). */
export function idleSessions(windows: IdleWindows, root = ROOT) {
  const total = String(windows.second.from + windows.second.seconds + 60);
  /** tai as a user runs it (package.json's bin): the native client in the terminal, no node waiting beside it. */
  const launcher = join(root, 'src/bin/tai');
  const agent = `sh -c 'exec node ${AGENT} silent --raw --rate 500; sleep 999'`;
  let named = 0;
  /**
   * A cockpit in its terminal, started by src/bin/tai under a name of its own (its server is no child of the
   * client: it is found by that name), from its server's start (with agents, once their panels show).
   */
  const cockpit = async (agents: boolean, env: Record<string, string>): Promise<{ t: ReturnType<typeof terminal>; name: string }> => {
    const name = `bench-idle-${process.pid}-${root === ROOT ? '' : 'base-'}${++named}`;
    const args = agents ? ['demo', '-s', name, '--agents', 'silent*8', '--rate', '500', '--', 'sleep', total] : ['-s', name, '--', 'sleep', total];
    const t = terminal(launcher, args, env);
    await until(() => serverNamed(name) !== undefined && (!agents || t.text.includes('demo silent #8')));
    return { t, name };
  };
  // The server first, as tmux's: the first pid's RSS is the server's alone; then the native client in the terminal.
  const withServer = (t: ReturnType<typeof terminal>, name: string): number[] => [...[serverNamed(name)].filter((p): p is number => p !== undefined), ...clientSide(t.pty.pid)];
  const tai = (agents: boolean, env: Record<string, string>) => async (): Promise<Started> => {
    const { t, name } = await cockpit(agents, env);
    return { pids: () => withServer(t, name), end: () => stopNamed(t, name) };
  };
  const detached = async (): Promise<Started> => {
    const { t, name } = await cockpit(true, {});
    // Its terminal goes away (SIGHUP to the client): the server and its agents carry on with nobody attached.
    const server = serverNamed(name) ?? 0;
    t.pty.kill('SIGHUP');
    return {
      pids: () => [server],
      end: async () => {
        if (server > 0) process.kill(server, 'SIGTERM');
      },
    };
  };
  const tmux = (name: string, panes: number, clock: boolean) => async (): Promise<Started> => {
    const session = `tai-idle${name}-${process.pid}`;
    const s = await tmuxSession(session, `sleep ${total}`, new Array<string>(panes).fill(agent));
    // tai's headers show each agent's elapsed seconds (docs/spec.md, "Panel state machine": `Ns` or `MmSSs`), so its screen changes every
    // second; the like-for-like tmux redraws a clock with seconds in its status line every second.
    if (clock) for (const [option, value] of [['status', 'on'], ['status-interval', '1'], ['status-right', '%H:%M:%S']] as const) spawnSync('tmux', ['-L', session, 'set-option', '-g', option, value]);
    return { pids: () => [s.server, s.client.pty.pid], end: async () => void s.kill() };
  };
  return { tai, detached, tmux };
}

/**
 * The sessions, in four rounds of the same two windows each: tai (with the
 * server's flags, the default) beside the tmux it is compared with, then the
 * two tai sessions without the flags together.
 */
export async function measureIdle(windows: IdleWindows): Promise<IdleResult & { readonly steal: readonly (readonly [number, number])[] }> {
  const { tai, detached, tmux } = idleSessions(windows);
  // Without the server's Node flags: TAI_SERVER_FLAGS=0 (src/io/link/server-launch.ts).
  const noFlags = { TAI_SERVER_FLAGS: '0' };
  const rounds: Round[] = [
    { taiNoneFlags: tai(false, {}), tmuxNone: tmux('0', 0, false) },
    { tai8Flags: tai(true, {}), tmux8Clock: tmux('8c', 8, true) },
    { taiDetached: detached, tmux8: tmux('8', 8, false) },
    { taiNone: tai(false, noFlags), tai8: tai(true, noFlags) },
  ];
  let result: Partial<IdleResult> = {};
  const steal: [number, number][] = [];
  for (const round of rounds) {
    const r = await measureRound(round, windows);
    result = { ...result, ...r.measures };
    steal.push(r.steal);
  }
  return { ...(result as IdleResult), steal };
}

const f = (n: number, d = 2) => (Number.isFinite(n) ? n.toFixed(d) : 'n/a');

/** The idle rows of the cockpit table (measure | tai | tmux | tai / tmux). */
export async function idleRows(quick: boolean): Promise<string[]> {
  // Start-up (V8's compiling and its memory reducer's collections) lasts some 30 s; the silent panels turn idle
  // after 60 s of silence (and the server collects its garbage once): the first window is between the two, the
  // second after both, the state a silent night's run is in.
  const windows: IdleWindows = quick ? { first: { from: 10, seconds: 10 }, second: { from: 25, seconds: 10 } } : { first: { from: 35, seconds: 22 }, second: { from: 80, seconds: 30 } };
  const r = await measureIdle(windows);
  const span = (w: IdleWindows['first']) => `${w.from}-${w.from + w.seconds} s`;
  const when = `${span(windows.first)} / ${span(windows.second)} after the start`;
  const both = (m: IdleMeasure) => `${f(m.cpuPct, 3)} / ${f(m.laterPct, 3)}`;
  const ratio = (a: IdleMeasure, b: IdleMeasure) => `${f(a.cpuPct / b.cpuPct)} / ${f(a.laterPct / b.laterPct)}`;
  return [
    `| idle, no agents, ${when}: % of a core | ${both(r.taiNoneFlags)} | ${both(r.tmuxNone)} | |`,
    `| idle, 8 silent agents, same, tmux with a seconds clock in its status line (a redraw a second, as tai's elapsed times): % of a core | ${both(r.tai8Flags)} | ${both(r.tmux8Clock)} | ${ratio(r.tai8Flags, r.tmux8Clock)} |`,
    `| idle, 8 silent agents, detached (the server alone), same; tmux attached, no clock: % of a core | ${both(r.taiDetached)} | ${both(r.tmux8)} | |`,
    `| idle, no agents / 8 silent agents: wake-ups a second (first window) | ${f(r.taiNoneFlags.wakeupsPerS, 1)} / ${f(r.tai8Flags.wakeupsPerS, 1)} | ${f(r.tmuxNone.wakeupsPerS, 1)} / ${f(r.tmux8Clock.wakeupsPerS, 1)} | |`,
    `| idle, no agents / 8 silent agents / detached: wake-ups a second (second window) | ${f(r.taiNoneFlags.laterWakeupsPerS, 1)} / ${f(r.tai8Flags.laterWakeupsPerS, 1)} / ${f(r.taiDetached.laterWakeupsPerS, 1)} | ${f(r.tmuxNone.laterWakeupsPerS, 1)} / ${f(r.tmux8Clock.laterWakeupsPerS, 1)} / ${f(r.tmux8.laterWakeupsPerS, 1)} | |`,
    `| RSS MB with no agents | ${f(r.taiNoneFlags.rss, 1)} | ${f(r.tmuxNone.rss, 1)} | ${f(r.taiNoneFlags.rss / r.tmuxNone.rss, 1)} |`,
    `| RSS MB with 8 panels | ${f(r.tai8Flags.rss, 1)} | ${f(r.tmux8Clock.rss, 1)} | ${f(r.tai8Flags.rss / r.tmux8Clock.rss, 1)} |`,
    `| the server alone (the cockpit itself), RSS MB with 8 panels: attached / detached | ${f(r.tai8Flags.serverRss, 1)} / ${f(r.taiDetached.serverRss, 1)} | ${f(r.tmux8Clock.serverRss, 1)} | |`,
    `| without SERVER_NODE_FLAGS (the two at once): idle, no agents, % of a core | ${both(r.taiNone)} | | |`,
    `| without SERVER_NODE_FLAGS: idle, 8 silent agents, % of a core | ${both(r.tai8)} | | |`,
    `| without SERVER_NODE_FLAGS: RSS MB with no agents / 8 panels (the server alone) | ${f(r.taiNone.rss, 1)} / ${f(r.tai8.rss, 1)} (${f(r.tai8.serverRss, 1)}) | | |`,
    `| the host's steal time in the windows, rounds 1-4, % of a core (0 on a quiet host) | ${r.steal.map(([a, b]) => `${f(a)} / ${f(b)}`).join(', ')} | | |`,
  ];
}

/** `npm run bench -- idle`: the idle rows alone, as a table. */
export async function run(options: IdleBenchOptions = {}): Promise<void> {
  if (spawnSync('tmux', ['-V']).status !== 0) {
    process.stdout.write('idle bench: tmux is not installed; skipped\n');
    return;
  }
  const quick = options.quick ?? false;
  // TAI_BENCH_BASE=/path/to/another/tai/tree: that tree's cockpit beside this one's, in the same windows (idle-base.ts).
  const base = process.env.TAI_BENCH_BASE;
  if (base !== undefined && base !== '') {
    const rounds = Number(process.env.TAI_BENCH_IDLE_ROUNDS ?? 2) || 2;
    process.stdout.write(`\n## idle: this tree against ${base} (160x60, ${rounds} rounds${quick ? ', --quick' : ''})\n\n`);
    process.stdout.write('| measure | this tree | the base | tmux (server + client) |\n|---|---|---|---|\n');
    for (const row of await (await import('./idle-base.js')).idleBaseRows(base, quick, rounds)) process.stdout.write(`${row}\n`);
    return;
  }
  process.stdout.write(`\n## idle: cockpit vs tmux (160x60${quick ? ', --quick' : ''})\n\n`);
  process.stdout.write('| measure | tai | tmux (server + client) | tai / tmux |\n|---|---|---|---|\n');
  for (const row of await idleRows(quick)) process.stdout.write(`${row}\n`);
}
