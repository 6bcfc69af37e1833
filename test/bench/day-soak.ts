/**
 * `npm run bench -- soak [--minutes N]`: a day-long run, shortened. A real
 * cockpit (`tai demo` in a pty, its server as a user's) with 8 agents at
 * once: 4 demo agents streaming all along, and 4 slots that start agents
 * with `tai spawn -t NAME` from outside, one after the other: 2 stream and
 * end, 2 are ACP agents that stream, ask permission (answered with
 * `tai ask answer` after a few seconds) and end. Once a minute a client
 * attaches in a pty of its own, draws for 20 s and detaches (prefix + d).
 * Printed per minute: the server's RSS and CPU, its CPU per agent ended
 * and per MB streamed (the cost per unit of work, which a shared machine's
 * load moves less than a percentage), the state database's size against
 * what its transcripts and records hold, the transcript rows written, the
 * load average; at the end (soak-report.ts) RSS growth after the warm-up,
 * the warm-up's end against the last minutes, the bytes per transcript row,
 * and the database after `tai record gc`. A benchmark reports; it never
 * fails.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pty from 'node-pty';
import { cpuOf, rssOf, serverOf } from './cockpit.js';
import { attachOnce, CLI, soakEnv, startLoad, tai, waitFor, type LoadCounts } from './soak-load.js';
import { bytesPerRow, dbBytes, heldBytes, lookAt, streamedBytes } from './soak-db.js';
import { f, GC_AGE, printTable, type Minute } from './soak-report.js';
import { printHeapTable } from './soak-heap.js';

/** Options of the soak. */
export interface DaySoakOptions {
  /** Minutes of load (default 30). */
  readonly minutes?: number;
}

/**
 * Profiling, by environment: TAI_SOAK_HEAP_DIR (a folder) makes the server
 * write a heap snapshot there on SIGPWR, taken when the agents started reach
 * each count of TAI_SOAK_HEAP_AT (e.g. `50,300`); TAI_SOAK_AGENT_SECONDS
 * shortens the started agents' lives so those counts come sooner;
 * TAI_SOAK_CPU_PROF_DIR (a folder) gets a CPU profile of the server per
 * minute (server-profile.cjs), to compare an early minute with a late one;
 * TAI_SOAK_HEAP_LOG (a file) gets the server's V8 heap and anonymous memory
 * every 5 s (server-heap.cjs), to tell the JS heap's growth from malloc's,
 * and with TAI_SOAK_HEAP_GC=1 after a full collection once a minute;
 * TAI_SOAK_V8_FLAGS (with it) sets V8 flags in the server, to try one;
 * TAI_SOAK_ALLOC_PROF_DIR (a folder) gets, every minute, a sampling heap
 * profile of what the server allocated that is still live or was freed by a
 * full collection (server-alloc.cjs): where the old space's garbage comes from.
 */
const HEAP_DIR = process.env.TAI_SOAK_HEAP_DIR;
const HEAP_AT = (process.env.TAI_SOAK_HEAP_AT ?? '').split(',').filter(Boolean).map(Number);
const AGENT_SECONDS = Number(process.env.TAI_SOAK_AGENT_SECONDS ?? 40);
const PROF_DIR = process.env.TAI_SOAK_CPU_PROF_DIR;
const PROFILER = fileURLToPath(new URL('../../../test/bench/server-profile.cjs', import.meta.url));
const HEAP_LOG = process.env.TAI_SOAK_HEAP_LOG;
const HEAP_LOGGER = fileURLToPath(new URL('../../../test/bench/server-heap.cjs', import.meta.url));
const ALLOC_DIR = process.env.TAI_SOAK_ALLOC_PROF_DIR;
const ALLOC_PROFILER = fileURLToPath(new URL('../../../test/bench/server-alloc.cjs', import.meta.url));

/** Tokens a second of every streaming agent. */
const RATE = 200;
const RSS_SAMPLE_MS = 5000;

/** Runs the soak and prints its table. */
export async function run(options: DaySoakOptions = {}): Promise<void> {
  const minutes = Math.max(1, Math.round(options.minutes ?? 30));
  const dir = mkdtempSync(join(tmpdir(), 'tai-soak-'));
  const env = soakEnv(dir);
  if (HEAP_DIR) env.NODE_OPTIONS = `--heapsnapshot-signal=SIGPWR --diagnostic-dir=${HEAP_DIR}`;
  if (PROF_DIR) Object.assign(env, { NODE_OPTIONS: `--require=${PROFILER}`, TAI_SOAK_CPU_PROF_DIR: PROF_DIR });
  if (HEAP_LOG) Object.assign(env, { NODE_OPTIONS: `${env.NODE_OPTIONS ?? ''} --require=${HEAP_LOGGER}`.trim(), TAI_SOAK_HEAP_LOG: HEAP_LOG, TAI_SOAK_HEAP_GC: process.env.TAI_SOAK_HEAP_GC ?? '', TAI_SOAK_V8_FLAGS: process.env.TAI_SOAK_V8_FLAGS ?? '' });
  if (ALLOC_DIR) Object.assign(env, { NODE_OPTIONS: `${env.NODE_OPTIONS ?? ''} --require=${ALLOC_PROFILER}`.trim(), TAI_SOAK_ALLOC_PROF_DIR: ALLOC_DIR });
  for (const d of ['home', 'state', 'config', 'data', 'cache', 'work']) mkdirSync(join(dir, d));
  mkdirSync(env.XDG_RUNTIME_DIR!, { mode: 0o700 });
  const cwd = join(dir, 'work');
  const name = `soak${process.pid}`;
  const total = String(minutes * 60 + 600);
  // As a user starts it: `tai demo` in a terminal; its first client detaches once the agents show.
  const first = pty.spawn(process.execPath, [CLI, 'demo', '-s', name, '--agents', 'stream*4', '--rate', String(RATE), '--seconds', total, '--', 'sleep', total], {
    name: 'xterm-256color',
    cols: 160,
    rows: 60,
    cwd,
    env,
  });
  let screen = '';
  let firstExited = false;
  first.onData((d) => (screen = (screen + d).slice(-20_000)));
  first.onExit(() => (firstExited = true));
  process.stdout.write(`\n## soak: a cockpit server with 8 agents for ${minutes} min (160x60), state in ${dir}\n\n`);
  if (!(await waitFor(() => screen.includes('demo stream #4'), 60_000))) {
    process.stdout.write(`soak: the cockpit did not show its agents in 60 s; its screen ended with:\n${screen.slice(-2000)}\n`);
    first.kill('SIGKILL');
    return;
  }
  const server = serverOf(first.pid) ?? 0;
  first.write('\x1dd');
  await waitFor(() => firstExited, 20_000);
  const load = startLoad({ name, env, cwd, slots: ['stream', 'ask', 'stream', 'ask'], agentSeconds: AGENT_SECONDS, rate: RATE, answerAfterS: 4 });
  const snapping = HEAP_DIR ? setInterval(() => snapAt(server, load.counts), 1000) : undefined;
  const rows = await minutesOf(minutes, server, env, cwd, name, load.counts, join(dir, 'state'));
  clearInterval(snapping);
  await load.stop();
  const state = join(dir, 'state');
  const end = { look: lookAt(state), perRow: bytesPerRow(state) };
  const gcStart = performance.now();
  const gcOut = await tai({ env, cwd }, ['record', 'gc']);
  const gcMs = performance.now() - gcStart;
  const afterGc = { bytes: dbBytes(state), held: heldBytes(lookAt(state)), out: gcOut, ms: gcMs };
  const agedStart = performance.now();
  const gcAgedOut = await tai({ env, cwd }, ['record', 'gc', '--older-than', GC_AGE]);
  const aged = { bytes: dbBytes(state), held: heldBytes(lookAt(state)), out: gcAgedOut, ms: performance.now() - agedStart };
  await tai({ env, cwd }, ['kill', name]);
  await waitFor(() => rssOf(server) === 0, 10_000);
  printTable(rows, end, afterGc, aged, load.counts);
  if (HEAP_LOG) printHeapTable(HEAP_LOG);
  rmSync(dir, { recursive: true, force: true });
}

const snapped = new Set<number>();
/** Signals the server to write a heap snapshot once agents started reach each of TAI_SOAK_HEAP_AT. */
function snapAt(server: number, counts: LoadCounts): void {
  for (const at of HEAP_AT) {
    if (counts.started < at || snapped.has(at)) continue;
    snapped.add(at);
    process.stdout.write(`soak: heap snapshot at ${counts.started} agents started (${counts.ended} ended) into ${HEAP_DIR}\n`);
    process.kill(server, 'SIGPWR');
  }
}

/** Samples every minute while the load runs; a client attaches at the start of each minute and detaches 20 s later. */
async function minutesOf(minutes: number, server: number, env: Record<string, string>, cwd: string, name: string, counts: LoadCounts, state: string): Promise<Minute[]> {
  const rows: Minute[] = [];
  const start = performance.now();
  let cpu0 = cpuOf(server);
  let ended0 = counts.ended;
  let look0 = lookAt(state);
  for (let m = 1; m <= minutes; m++) {
    const attach = attachOnce({ name, env, cwd }, 20_000);
    const due = start + m * 60_000;
    // RSS every 5 s: a single sample reads wherever the collector happens to be.
    const rss: number[] = [];
    while (performance.now() < due - 100) {
      await new Promise((r) => setTimeout(r, Math.min(RSS_SAMPLE_MS, Math.max(0, due - performance.now()))));
      rss.push(rssOf(server));
    }
    if (rss.length === 0) rss.push(rssOf(server));
    const attached = await attach;
    if (PROF_DIR) process.kill(server, 'SIGUSR2'); // the server's profile of this minute
    const cpu = cpuOf(server);
    const look = lookAt(state);
    const row: Minute = {
      minute: m,
      rssMb: Math.min(...rss),
      rssPeakMb: Math.max(...rss),
      cpuS: cpu - cpu0,
      endedInMinute: counts.ended - ended0,
      streamedMb: mb(streamedBytes(look) - streamedBytes(look0)),
      rowsInMinute: look.rowsWritten - look0.rowsWritten,
      dbMb: mb(look.fileBytes + look.walBytes),
      walMb: mb(look.walBytes),
      heldMb: mb(heldBytes(look)),
      counts: { ...counts },
      attachMs: attached.firstFrameMs,
      load1: Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]),
    };
    cpu0 = cpu;
    ended0 = counts.ended;
    look0 = look;
    rows.push(row);
    process.stdout.write(
      `soak: minute ${m}: RSS ${f(row.rssMb)} - ${f(row.rssPeakMb)} MB, CPU ${f((row.cpuS / 60) * 100)} % (${f(row.cpuS / row.endedInMinute, 2)} s per agent ended, ${f(row.cpuS / row.streamedMb, 2)} s per MB streamed), ` +
        `db ${f(row.dbMb, 2)} MB for ${f(row.heldMb, 2)} MB held, ${row.rowsInMinute} transcript rows, agents ${counts.started} started / ${counts.ended} ended, load ${row.load1}\n`,
    );
    if (rssOf(server) === 0) {
      process.stdout.write('soak: the server is gone; the run stops here\n');
      break;
    }
  }
  return rows;
}

const mb = (bytes: number): number => bytes / (1 << 20);
