/**
 * The cockpit against tmux, side by side in one run. Both run in a
 * pty of the same size that this benchmark reads as the terminal would:
 * - stream: 8 agents x 500 tokens/s (tai: `tai demo`; tmux: 8 panes running
 *   the same fixture agent, as text): CPU of tai vs tmux server + client,
 *   bytes written to the terminal and RSS at the end of each window; tai runs
 *   twice, without and with SERVER_NODE_FLAGS (the server's Node flags);
 *   three rounds in turns, each side's median (TAI_BENCH_STREAM_ROUNDS); TAI_BENCH_BASE=TREE
 *   runs that tree's cockpit in the same rounds;
 * - idle: no agents, and 8 silent ones: CPU, wake-ups and RSS (idle.ts);
 * - seq: `seq 1 2000000` in the main pane: wall time;
 * - latency: a key typed into `cat` until its echo reaches the terminal;
 * - soak: see soak.ts (in-process, heap and RSS);
 * - memory: 8 silent agents, attached, after the idle collection: RSS and
 *   PSS of every process of the cockpit, reapers included, beside tmux's
 *   server and client (memory.ts).
 * A benchmark reports; it never fails. TAI_BENCH_ONLY=stream,idle,seq,keys,soak,memory
 * picks measures. tai is started as a user starts it, by src/bin/tai.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pty from 'node-pty';
import { builtClient, nativeClientFor } from '../../src/io/link/native-client.js';
import { runSoak } from './soak.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const CLI = join(ROOT, 'dist/src/cli.js');
/** tai as a user runs it (package.json's bin): the native client runs in its place. */
const LAUNCHER = join(ROOT, 'src/bin/tai');
const AGENT = join(ROOT, 'dist/src/demo-agent.js');
const COLS = 160;
const ROWS = 60; // 8 panels need 8 x 6 rows plus 7 separators
const TICK = 100; // clock ticks per second in /proc (USER_HZ)

/** Options of the cockpit benchmark. */
export interface CockpitBenchOptions {
  readonly quick?: boolean;
}

/** CPU seconds (user + system) of a process so far; 0 once it is gone. */
export function cpuOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / TICK;
  } catch {
    return 0;
  }
}

/**
 * The cockpit's server started by the client `pid` (tai starts it as its
 * child, in a session of its own); undefined while it starts.
 */
export function serverOf(pid: number): number | undefined {
  return childRunning(pid, '__server');
}

/**
 * The native client (src/native/client.c) that the client `pid` runs and
 * waits on, if it does: its relay, counted with the client's own CPU.
 */
export function nativeClientOf(pid: number): number | undefined {
  return childRunning(pid, 'tai-client');
}

/** The child of `pid` whose command line holds `marker`, if any. */
function childRunning(pid: number, marker: string): number | undefined {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    return children.find((c) => {
      try {
        return readFileSync(`/proc/${c}/cmdline`, 'utf8').includes(marker);
      } catch {
        return false;
      }
    });
  } catch {
    return undefined;
  }
}

/** The children of `pid`. */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

const commandOf = (pid: number): string => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
};

/** The server of the cockpit named `name`, by its command line (started by src/bin/tai, it is no client's child). */
export function serverNamed(name: string): number | undefined {
  const marker = `"name":${JSON.stringify(name)}`;
  const pid = readdirSync('/proc').find((e) => /^\d+$/.test(e) && commandOf(Number(e)).includes('__server') && commandOf(Number(e)).includes(marker));
  return pid === undefined ? undefined : Number(pid);
}

/** Every process of a cockpit on the terminal whose process is `terminalPid`: its server, its client side, the server's reapers. */
export function cockpitProcesses(terminalPid: number, name: string): { server: number[]; client: number[]; reapers: number[] } {
  const server = serverNamed(name) ?? serverOf(terminalPid);
  const reapers = server === undefined ? [] : childrenOf(server).filter((c) => commandOf(c).includes('tai-reaper'));
  return { server: server === undefined ? [] : [server], client: clientSide(terminalPid), reapers };
}

/** The client `pid` and the native client it runs, if any: tai's client side. */
export function clientSide(pid: number): number[] {
  const native = nativeClientOf(pid);
  return native === undefined ? [pid] : [pid, native];
}

/** CPU seconds of a tai client (with its native client) and its server, as tmux's are counted: server plus client. */
export function taiCpu(client: number): () => number {
  let server: number | undefined;
  let native: number | undefined;
  return () => {
    server ??= serverOf(client);
    native ??= nativeClientOf(client);
    return cpuOf(client) + (server === undefined ? 0 : cpuOf(server)) + (native === undefined ? 0 : cpuOf(native));
  };
}

/** Ends a tai run as its main program's exit would: the server told to stop (SIGTERM), the client then ends. */
export async function stopTai(t: ReturnType<typeof terminal>): Promise<void> {
  const server = serverOf(t.pty.pid);
  if (server === undefined) t.pty.kill('SIGTERM');
  else process.kill(server, 'SIGTERM');
  await until(() => t.exited, 15_000);
}

/** Resident set size of `pid` in MB; 0 once it is gone. */
export function rssOf(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return Number(kb ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** Resolves after `ms`. */
export const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A terminal: a pty running `file args`, counting what it receives. */
export function terminal(file: string, args: string[], env: Record<string, string> = {}) {
  const p = pty.spawn(file, args, {
    name: 'xterm-256color',
    cols: COLS,
    rows: ROWS,
    cwd: ROOT,
    env: { ...(process.env as Record<string, string>), NODE_ENV: 'production', ...env },
  });
  const t = { pty: p, bytes: 0, text: '', exited: false, waiter: undefined as undefined | ((d: string) => void) };
  p.onData((d) => {
    t.bytes += Buffer.byteLength(d);
    t.text = (t.text + d).slice(-65_536);
    t.waiter?.(d);
  });
  p.onExit(() => (t.exited = true));
  return t;
}

/** True once `check` holds, false after `timeoutMs`. */
export async function until(check: () => boolean, timeoutMs = 30_000): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (check()) return true;
    await delay(20);
  }
  return false;
}

/** A private tmux server with a main pane and `panes` agent panes in main-vertical. */
export async function tmuxSession(name: string, main: string, panes: string[]) {
  const tm = (...a: string[]) => execFileSync('tmux', ['-L', name, '-f', '/dev/null', ...a], { encoding: 'utf8' });
  const client = terminal('tmux', ['-L', name, '-f', '/dev/null', 'new-session', '-s', 'b', main]);
  await until(() => spawnSync('tmux', ['-L', name, 'has-session', '-t', 'b']).status === 0);
  tm('set-option', '-g', 'status', 'off');
  for (const cmd of panes) {
    tm('split-window', '-t', 'b', '-d', cmd);
    tm('select-layout', '-t', 'b', 'main-vertical');
  }
  tm('set-window-option', '-t', 'b', 'main-pane-width', '55%');
  tm('select-layout', '-t', 'b', 'main-vertical');
  const server = Number(tm('display-message', '-p', '-t', 'b', '#{pid}').trim());
  return {
    client,
    server,
    cpu: () => cpuOf(server) + cpuOf(client.pty.pid),
    kill: () => spawnSync('tmux', ['-L', name, 'kill-server']),
  };
}

interface Measure {
  cpu: number;
  bytes: number;
  seconds: number;
  /** RSS MB at the end of the window. */
  rss: number;
}

/** CPU and bytes over `seconds`, from now, and RSS at the end. */
async function window(cpu: () => number, bytes: () => number, rss: () => number, seconds: number): Promise<Measure> {
  const c0 = cpu();
  const b0 = bytes();
  const t0 = Date.now();
  await delay(seconds * 1000);
  return { cpu: cpu() - c0, bytes: bytes() - b0, seconds: (Date.now() - t0) / 1000, rss: rss() };
}

/** The middle value (the mean of the two middle ones for an even count). */
function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const m = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[m]! : (sorted[m - 1]! + sorted[m]!) / 2;
}

let started = 0;

/** Ends the cockpit `name` as its main program's exit would (its server told to stop); resolves once the terminal's process ended. */
export async function stopNamed(t: ReturnType<typeof terminal>, name: string): Promise<void> {
  const server = serverNamed(name);
  if (server === undefined) t.pty.kill('SIGTERM');
  else process.kill(server, 'SIGTERM');
  await until(() => t.exited, 15_000);
}

/** Measures of one side: one per window, in order. */
type Windows = Measure[];

/**
 * 8 streaming agents (or 8 silent ones) in tai and in tmux, measured over
 * consecutive windows of `seconds` each after `warm` seconds (the same on
 * both sides): the first window shows the start, the last the steady state
 * once V8 has compiled the hot paths (tmux, in C, has no warm-up).
 */
async function agents(
  mode: 'stream' | 'silent',
  seconds: number,
  warm: number,
  windows = 1,
  round = 0,
): Promise<{ tai: Windows; taiFlags: Windows; base: Windows | undefined; tmux: Windows }> {
  const total = warm + seconds * windows + 2;
  const args = mode === 'stream' ? ['--rate', '500', '--seconds', String(total)] : ['--rate', '500'];
  const measure = async (cpu: () => number, bytes: () => number, rss: () => number): Promise<Windows> => {
    const out: Windows = [];
    for (let i = 0; i < windows; i++) out.push(await window(cpu, bytes, rss, seconds));
    return out;
  };
  const runTai = async (flags: boolean, launcher = LAUNCHER): Promise<Windows> => {
    // The server is started with SERVER_NODE_FLAGS unless TAI_SERVER_FLAGS=0 (src/io/link/server-launch.ts).
    const name = `bench-${process.pid}-${++started}`;
    const tai = terminal(launcher, ['demo', '-s', name, '--agents', `${mode}*8`, ...args, '--', 'sleep', String(total + 5)], flags ? {} : { TAI_SERVER_FLAGS: '0' });
    await until(() => tai.text.includes(`demo ${mode} #8`));
    await delay(warm * 1000 + (mode === 'silent' ? 1500 : 0));
    const { server, client } = cockpitProcesses(tai.pty.pid, name);
    const all = [...server, ...client];
    const m = await measure(() => all.reduce((a, pid) => a + cpuOf(pid), 0), () => tai.bytes, () => all.reduce((a, pid) => a + rssOf(pid), 0));
    await stopNamed(tai, name);
    return m;
  };
  // One after the other, never at once: they would compete for the two cores. TAI_BENCH_BASE=TREE: that tree's
  // cockpit (with its flags) in the same round, before this one's in odd rounds, so that drift falls on both.
  const baseRoot = process.env.TAI_BENCH_BASE;
  const runBase = async () => (baseRoot ? await runTai(true, join(baseRoot, 'src/bin/tai')) : undefined);
  const baseFirst = round % 2 === 1 ? await runBase() : undefined;
  const taiM = await runTai(false);
  const taiFlagsM = await runTai(true);
  const baseM = round % 2 === 1 ? baseFirst : await runBase();

  const name = `tai-bench-${process.pid}`;
  const dir = mkdtempSync(join(tmpdir(), 'tai-bench-'));
  const go = join(dir, 'go');
  const agentCmd = `sh -c 'while [ ! -e ${go} ]; do sleep 0.05; done; exec node ${AGENT} ${mode} --raw ${args.join(' ')}; sleep 999'`;
  const tmux = await tmuxSession(name, `sleep ${total + 30}`, new Array<string>(8).fill(agentCmd));
  writeFileSync(go, '');
  await delay(warm * 1000 + (mode === 'silent' ? 1500 : 0));
  const tmuxM = await measure(tmux.cpu, () => tmux.client.bytes, () => rssOf(tmux.server) + rssOf(tmux.client.pty.pid));
  tmux.kill();
  rmSync(dir, { recursive: true, force: true });
  return { tai: taiM, taiFlags: taiFlagsM, base: baseM, tmux: tmuxM };
}

/** Wall time of `seq 1 N` in the main pane, measured inside the pane. */
async function seq(n: number): Promise<{ tai: number; tmux: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'tai-seq-'));
  const out = join(dir, 't');
  const script = `s=$(date +%s%N); seq 1 ${n}; e=$(date +%s%N); echo $(( (e - s) / 1000000 )) > ${out}`;
  const tai = terminal(process.execPath, [CLI, '--', 'sh', '-c', script]);
  await until(() => tai.exited, 120_000);
  const taiMs = Number(readFileSync(out, 'utf8'));
  rmSync(out);
  const name = `tai-bench-seq-${process.pid}`;
  const tmux = await tmuxSession(name, `sh -c '${script.replace(/'/g, "'\\''")}'`, []);
  await until(() => existsSync(out) && readFileSync(out, 'utf8').trim() !== '', 120_000);
  const tmuxMs = Number(readFileSync(out, 'utf8'));
  tmux.kill();
  rmSync(dir, { recursive: true, force: true });
  return { tai: taiMs, tmux: tmuxMs };
}

/** Keys typed before measuring (the first ones pay for compiling the path). */
const WARM_KEYS = 10;

/** Milliseconds from a key `ch` written to the terminal's pty until its echo is read back; undefined after 2 s. */
async function keyToEcho(t: ReturnType<typeof terminal>, ch: string): Promise<number | undefined> {
  let seen = '';
  const echoed = new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), 2_000);
    t.waiter = (d) => {
      seen += d;
      if (seen.includes(ch)) {
        clearTimeout(timer);
        resolve(true);
      }
    };
  });
  const t0 = performance.now();
  t.pty.write(ch);
  const ok = await echoed;
  t.waiter = undefined;
  return ok ? performance.now() - t0 : undefined;
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;

/**
 * A young-generation collection of this process between two keys (`npm run
 * bench` exposes gc): the bench's own garbage is then never collected while
 * a key is timed. Without it, a scavenge or a mark-compact of this very
 * process (5-7 ms, --trace-gc) fell inside a key now and then and made that
 * key 10-14 ms, on either side: the p99 of 300 keys measured the bench.
 */
const collectBetweenKeys: () => void = (() => {
  const gc = (globalThis as { gc?: (options?: { type: 'minor' }) => void }).gc;
  return gc === undefined ? () => {} : () => gc({ type: 'minor' });
})();

/**
 * Key-to-echo latencies (ms, sorted) of `count` keys typed into `cat` in tai
 * and in tmux, both running, in turns: a key to tai, 15 ms, a key to tmux,
 * 15 ms, so each side has 30 ms between its keys and the machine's drift
 * (other jobs on these two cores) falls on both alike. The bench's own
 * garbage is collected between keys, never during one (collectBetweenKeys).
 */
async function keys(count: number): Promise<{ tai: number[]; tmux: number[]; base: number[]; frames: number[] }> {
  const taiName = `bench-keys-${process.pid}`;
  const tai = terminal(LAUNCHER, ['-s', taiName, '--', 'cat']);
  // TAI_BENCH_BASE=/path/to/another/tai/tree: that tree's build typed to in the same turns, to compare two builds.
  const baseRoot = process.env.TAI_BENCH_BASE;
  const baseName = `bench-keys-base-${process.pid}`;
  const base = baseRoot ? terminal(join(baseRoot, 'src/bin/tai'), ['-s', baseName, '--', 'cat']) : undefined;
  // TAI_BENCH_FRAMES=1: this build once more with its output and keys in frames (TAI_DIRECT_TTY=0), the other way out.
  const framesName = `bench-keys-frames-${process.pid}`;
  const frames = process.env.TAI_BENCH_FRAMES === '1' ? terminal(LAUNCHER, ['-s', framesName, '--', 'cat'], { TAI_DIRECT_TTY: '0' }) : undefined;
  const name = `tai-bench-keys-${process.pid}`;
  const tmux = await tmuxSession(name, 'cat', []);
  await delay(1500);
  const times = { tai: [] as number[], tmux: [] as number[], base: [] as number[], frames: [] as number[] };
  const sides = [['tai', tai], ['tmux', tmux.client], ...(base ? [['base', base] as const] : []), ...(frames ? [['frames', frames] as const] : [])] as const;
  for (let i = 0; i < count + WARM_KEYS; i++) {
    const ch = String.fromCharCode(97 + (i % 26));
    for (const [side, t] of sides) {
      const ms = await keyToEcho(t, ch);
      if (ms !== undefined && i >= WARM_KEYS) times[side].push(ms);
      collectBetweenKeys();
      await delay(15);
    }
  }
  await stopNamed(tai, taiName);
  if (base) await stopNamed(base, baseName);
  if (frames) await stopNamed(frames, framesName);
  tmux.kill();
  const sorted = (xs: number[]) => xs.sort((a, b) => a - b);
  return { tai: sorted(times.tai), tmux: sorted(times.tmux), base: sorted(times.base), frames: sorted(times.frames) };
}

const f = (n: number, d = 2) => (Number.isFinite(n) ? n.toFixed(d) : 'n/a');

/** Runs the cockpit benchmark and prints its table. */
export async function run(options: CockpitBenchOptions = {}): Promise<void> {
  if (spawnSync('tmux', ['-V']).status !== 0) {
    process.stdout.write('cockpit bench: tmux is not installed; skipped\n');
    return;
  }
  const quick = options.quick ?? false;
  const streamS = quick ? 6 : 20;
  const lines: string[] = [];
  const say = (l: string) => {
    lines.push(l);
    process.stdout.write(`${l}\n`);
  };
  // Which client relays the keys (src/io/link/native-client.ts): the native one unless forced off or not built.
  const client = nativeClientFor(process.env.TAI_NATIVE_CLIENT, builtClient()) === undefined ? 'node' : 'native';
  say(`\n## cockpit vs tmux (${COLS}x${ROWS}${quick ? ', --quick' : ''}, tai's ${client} client)\n`);
  say('| measure | tai (server + client) | tmux (server + client) | tai / tmux |');
  say('|---|---|---|---|');
  const only = (process.env.TAI_BENCH_ONLY ?? 'stream,idle,seq,keys,soak,memory').split(',');
  if (only.includes('stream')) {
    // Two consecutive windows of one run: from 3 s after the start, then the next (steady state). Noisy on a
    // shared machine (one run's first window read 0.82-1.16x): rounds in turns, each side's median, as for seq.
    const count = quick ? 1 : Math.max(1, Number(process.env.TAI_BENCH_STREAM_ROUNDS ?? 3));
    const rounds: Awaited<ReturnType<typeof agents>>[] = [];
    for (let r = 0; r < count; r++) rounds.push(await agents('stream', streamS, 3, 2, r));
    const of = count === 1 ? '' : ` (median of ${count} rounds)`;
    for (let i = 0; i < 2; i++) {
      const mid = (side: 'tai' | 'taiFlags' | 'tmux', key: 'cpu' | 'bytes' | 'rss') => median(rounds.map((r) => r[side][i]![key]));
      const when = i === 0 ? `${streamS} s from 3 s after the start` : `the next ${streamS} s`;
      const [tai, flags, tmux] = [mid('tai', 'cpu'), mid('taiFlags', 'cpu'), mid('tmux', 'cpu')];
      say(`| 8 agents x 500 tok/s, ${when}: CPU s${of} | ${f(tai)} | ${f(tmux)} | ${f(tai / tmux)} |`);
      say(`| same: bytes to the terminal | ${mid('tai', 'bytes')} | ${mid('tmux', 'bytes')} | ${f(mid('tai', 'bytes') / mid('tmux', 'bytes'))} |`);
      say(`| same, tai with SERVER_NODE_FLAGS: CPU s${of} | ${f(flags)} | ${f(tmux)} | ${f(flags / tmux)} |`);
      if (count > 1) {
        const each = rounds.map((r) => `${f(r.taiFlags[i]!.cpu)} / ${f(r.tmux[i]!.cpu)}`).join(', ');
        const ratios = rounds.map((r) => f(r.taiFlags[i]!.cpu / r.tmux[i]!.cpu)).join(', ');
        say(`| same, each round: tai with the flags / tmux, CPU s | ${each} | | ${ratios} |`);
      }
      if (rounds[0]!.base !== undefined) {
        const base = median(rounds.map((r) => r.base![i]!.cpu));
        const each = rounds.map((r) => f(r.base![i]!.cpu)).join(', ');
        say(`| same, TAI_BENCH_BASE's build with its flags: CPU s${of} (each round: ${each}) | ${f(base)} | ${f(tmux)} | ${f(base / tmux)} |`);
      }
      const [rss, rssFlags, rssTmux] = [mid('tai', 'rss'), mid('taiFlags', 'rss'), mid('tmux', 'rss')];
      say(`| RSS MB at the end of that window (tai / with flags) | ${f(rss, 1)} / ${f(rssFlags, 1)} | ${f(rssTmux, 1)} | ${f(rss / rssTmux, 1)} / ${f(rssFlags / rssTmux, 1)} |`);
    }
  }
  if (only.includes('idle')) for (const row of await (await import('./idle.js')).idleRows(quick)) say(row);
  if (only.includes('seq')) {
    // Noisy on a shared machine: alternate the two, three rounds, medians.
    const rounds = [await seq(2_000_000), await seq(2_000_000), await seq(2_000_000)];
    const tai = median(rounds.map((r) => r.tai));
    const tmux = median(rounds.map((r) => r.tmux));
    say(`| seq 1 2000000 in the main pane: wall ms (median of 3) | ${tai} | ${tmux} | ${f(tai / tmux)} |`);
  }
  if (only.includes('keys')) {
    const k = await keys(quick ? 100 : 300);
    say(`| keypress to echo p50 ms (tai and tmux in turns) | ${f(pct(k.tai, 50))} | ${f(pct(k.tmux, 50))} | ${f(pct(k.tai, 50) / pct(k.tmux, 50))} |`);
    say(`| keypress to echo p99 ms | ${f(pct(k.tai, 99))} | ${f(pct(k.tmux, 99))} | ${f(pct(k.tai, 99) / pct(k.tmux, 99))} |`);
    if (k.base.length > 0) {
      say(`| same, TAI_BENCH_BASE's build: p50 ms | ${f(pct(k.base, 50))} | ${f(pct(k.tmux, 50))} | ${f(pct(k.base, 50) / pct(k.tmux, 50))} |`);
      say(`| same, TAI_BENCH_BASE's build: p99 ms | ${f(pct(k.base, 99))} | ${f(pct(k.tmux, 99))} | ${f(pct(k.base, 99) / pct(k.tmux, 99))} |`);
    }
    if (k.frames.length > 0) {
      say(`| same, in frames (TAI_DIRECT_TTY=0): p50 ms | ${f(pct(k.frames, 50))} | ${f(pct(k.tmux, 50))} | ${f(pct(k.frames, 50) / pct(k.tmux, 50))} |`);
      say(`| same, in frames (TAI_DIRECT_TTY=0): p99 ms | ${f(pct(k.frames, 99))} | ${f(pct(k.tmux, 99))} | ${f(pct(k.frames, 99) / pct(k.tmux, 99))} |`);
    }
  }
  if (only.includes('memory')) for (const row of await (await import('./memory.js')).memoryRows()) say(row);
  if (only.includes('soak')) {
    const soak = await runSoak({ simulatedSeconds: quick ? 300 : 1800 });
    say(`| soak ${soak.simulatedSeconds / 60} min of unique text (8 panels, in-process): heap MB at 10% / 50% / 100% | ${soak.heap.map((h) => f(h, 1)).join(' / ')} | | |`);
    say(`| same: RSS MB at 10% / 50% / 100% | ${soak.rss.map((h) => f(h, 1)).join(' / ')} | | |`);
  }
}
