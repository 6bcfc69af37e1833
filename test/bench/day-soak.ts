/**
 * `npm run bench -- soak [--minutes N]`: a day-long run, shortened. A real
 * cockpit (`tai demo` in a pty, its server as a user's) with 8 agents at
 * once: 4 demo agents streaming all along, and 4 slots that start agents
 * with `tai spawn -t NAME` from outside, one after the other: 2 stream and
 * end, 2 are ACP agents that stream, ask permission (answered with
 * `tai ask answer` after a few seconds) and end. Once a minute a client
 * attaches in a pty of its own, draws for 20 s and detaches (prefix + d).
 * Printed per minute: the server's RSS and CPU (also per agent ended),
 * the state database's size, agents started and ended, questions answered;
 * at the end RSS growth after the warm-up, CPU per minute against the
 * first, CPU per agent ended (first half of the minutes against the
 * second), the database's growth against what its transcripts and records
 * hold, and its size after `tai record gc`. A benchmark reports; it
 * never fails.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pty from 'node-pty';
import { cpuOf, rssOf, serverOf } from './cockpit.js';
import { attachOnce, CLI, soakEnv, startLoad, tai, waitFor, type LoadCounts } from './soak-load.js';

/** Options of the soak. */
export interface DaySoakOptions {
  /** Minutes of load (default 30). */
  readonly minutes?: number;
}

/**
 * Profiling, by environment: TAI_SOAK_HEAP_DIR (a folder) makes the server
 * write a heap snapshot there on SIGPWR, taken when the agents started reach
 * each count of TAI_SOAK_HEAP_AT (e.g. `50,300`); TAI_SOAK_AGENT_SECONDS
 * shortens the started agents' lives so those counts come sooner.
 */
const HEAP_DIR = process.env.TAI_SOAK_HEAP_DIR;
const HEAP_AT = (process.env.TAI_SOAK_HEAP_AT ?? '').split(',').filter(Boolean).map(Number);
const AGENT_SECONDS = Number(process.env.TAI_SOAK_AGENT_SECONDS ?? 40);

/** Minutes before RSS and CPU are taken as settled (start-up, V8's compiling, the first panels). */
const WARM_UP_MIN = 5;
/** Tokens a second of every streaming agent. */
const RATE = 200;
const RSS_SAMPLE_MS = 5000;

/** One minute's row. */
interface Minute {
  readonly minute: number;
  /** The lowest of the minute's samples: what garbage collection cannot give back. */
  readonly rssMb: number;
  readonly rssPeakMb: number;
  readonly cpuPct: number;
  /** CPU seconds of the minute per agent that ended in it: the cost per unit of work, which the machine's noise moves less than a percentage. */
  readonly cpuPerAgent: number;
  /** CPU seconds of the minute, and agents ended in it. */
  readonly cpuS: number;
  readonly endedInMinute: number;
  readonly dbMb: number;
  readonly counts: LoadCounts;
  readonly attachMs: number | undefined;
}

/** Bytes of the state database with its write-ahead log. */
function dbBytes(state: string): number {
  let n = 0;
  for (const f of ['tai.db', 'tai.db-wal']) {
    const p = join(state, 'tai', f);
    if (existsSync(p)) n += statSync(p).size;
  }
  return n;
}

/** What the database holds: characters of transcripts and of records. */
function heldChars(state: string): { transcripts: number; records: number; agents: number; referenced: number } {
  const db = new Database(join(state, 'tai', 'tai.db'), { readonly: true, fileMustExist: true });
  try {
    const one = (sql: string): number => Number((db.prepare(sql).get() as { n: number | null }).n ?? 0);
    const has = (table: string): boolean => db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !== undefined;
    return {
      transcripts: has('transcript_parts') ? one('SELECT SUM(LENGTH(CAST(text AS BLOB))) AS n FROM transcript_parts') : 0,
      records: has('records') ? one('SELECT SUM(chars) AS n FROM records') : 0,
      agents: has('agents') ? one('SELECT COUNT(*) AS n FROM agents') : 0,
      // Characters of transcripts read from their records rather than held twice (none before references existed).
      referenced: hasColumn(db, 'transcript_parts', 'ref_len') ? one('SELECT SUM(ref_len) AS n FROM transcript_parts') : 0,
    };
  } finally {
    db.close();
  }
}

const mb = (bytes: number): number => bytes / (1 << 20);

function hasColumn(db: Database.Database, table: string, column: string): boolean {
  return (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).some((c) => c.name === column);
}
const f = (n: number | undefined, d = 1): string => (n !== undefined && Number.isFinite(n) ? n.toFixed(d) : 'n/a');

/** Runs the soak and prints its table. */
export async function run(options: DaySoakOptions = {}): Promise<void> {
  const minutes = Math.max(1, Math.round(options.minutes ?? 30));
  const dir = mkdtempSync(join(tmpdir(), 'tai-soak-'));
  const env = soakEnv(dir);
  if (HEAP_DIR) env.NODE_OPTIONS = `--heapsnapshot-signal=SIGPWR --diagnostic-dir=${HEAP_DIR}`;
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
  const end = measureEnd(join(dir, 'state'));
  const gcOut = await tai({ env, cwd }, ['record', 'gc']);
  const afterGc = dbBytes(join(dir, 'state'));
  const gcAgedOut = await tai({ env, cwd }, ['record', 'gc', '--older-than', GC_AGE]);
  const afterAgedGc = dbBytes(join(dir, 'state'));
  await tai({ env, cwd }, ['kill', name]);
  await waitFor(() => rssOf(server) === 0, 10_000);
  printTable(rows, end, { bytes: afterGc, out: gcOut }, { bytes: afterAgedGc, out: gcAgedOut }, load.counts);
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
    const cpu = cpuOf(server);
    const endedInMinute = counts.ended - ended0;
    ended0 = counts.ended;
    const row: Minute = { minute: m, rssMb: Math.min(...rss), rssPeakMb: Math.max(...rss), cpuPct: ((cpu - cpu0) / 60) * 100, cpuS: cpu - cpu0, endedInMinute, cpuPerAgent: endedInMinute > 0 ? (cpu - cpu0) / endedInMinute : NaN, dbMb: mb(dbBytes(state)), counts: { ...counts }, attachMs: attached.firstFrameMs };
    cpu0 = cpu;
    rows.push(row);
    process.stdout.write(`soak: minute ${m}: RSS ${f(row.rssMb)} - ${f(row.rssPeakMb)} MB, CPU ${f(row.cpuPct)} % (${f(row.cpuPerAgent, 2)} s per agent ended), db ${f(row.dbMb, 2)} MB, agents ${counts.started} started / ${counts.ended} ended\n`);
    if (rssOf(server) === 0) {
      process.stdout.write('soak: the server is gone; the run stops here\n');
      break;
    }
  }
  return rows;
}

/** CPU seconds per agent ended over some minutes (their CPU and their agents summed, so one noisy minute weighs as much as it lasted). */
function perAgent(rows: readonly Minute[]): number {
  const ended = rows.reduce((n, r) => n + r.endedInMinute, 0);
  return ended > 0 ? rows.reduce((s, r) => s + r.cpuS, 0) / ended : NaN;
}

/** The database at the end: its size and what it holds. */
function measureEnd(state: string): { bytes: number; held: ReturnType<typeof heldChars> } {
  return { bytes: dbBytes(state), held: heldChars(state) };
}

/** Prints the per-minute table and the summary against the goals. */
/** `tai record gc` once more with this age: what a day's run gives back of agents finished before its last minutes. */
const GC_AGE = '10m';

/** A `tai record gc` run: the database's bytes after it and what it printed. */
interface GcRun {
  readonly bytes: number;
  readonly out: string | undefined;
}

function printTable(rows: readonly Minute[], end: ReturnType<typeof measureEnd>, gc: GcRun, aged: GcRun, counts: LoadCounts): void {
  const out = (l: string) => process.stdout.write(`${l}\n`);
  out('\n| minute | server RSS MB, lowest / highest of 12 samples | server CPU % of a core | CPU s per agent ended | state db MB (with WAL) | agents started / ended (cumulative) | questions answered | attach: first frame ms |');
  out('|---|---|---|---|---|---|---|---|');
  for (const r of rows) out(`| ${r.minute} | ${f(r.rssMb)} / ${f(r.rssPeakMb)} | ${f(r.cpuPct)} | ${f(r.cpuPerAgent, 2)} | ${f(r.dbMb, 2)} | ${r.counts.started} / ${r.counts.ended} | ${r.counts.answered} | ${f(r.attachMs, 0)} |`);
  const warm = Math.min(WARM_UP_MIN, rows.length - 1);
  const base = rows[warm - 1] ?? rows[0];
  const last = rows[rows.length - 1];
  const first = rows[0];
  const after = rows.slice(warm);
  const worstCpu = after.reduce((w, r) => Math.max(w, Math.abs(r.cpuPct / (first?.cpuPct ?? NaN) - 1)), 0);
  const settled = rows[warm];
  const worstSettled = after.reduce((w, r) => Math.max(w, Math.abs(r.cpuPct / (settled?.cpuPct ?? NaN) - 1)), 0);
  const held = end.held.transcripts + end.held.records;
  const growth = end.bytes - (first ? first.dbMb * (1 << 20) : 0);
  out('\n| measure | value | goal |');
  out('|---|---|---|');
  out(`| RSS growth from minute ${warm} to minute ${last?.minute ?? 'n/a'} (after the warm-up), lowest samples | ${f((last?.rssMb ?? NaN) - (base?.rssMb ?? NaN))} MB (${f(base?.rssMb)} -> ${f(last?.rssMb)}) | at most 5 MB |`);
  out(`| CPU per minute after the warm-up against minute 1: largest difference | ${f(worstCpu * 100)} % (minute 1: ${f(first?.cpuPct)} % of a core) | within 10 % |`);
  out(`| same, against minute ${warm + 1} (the first settled minute) | ${f(worstSettled * 100)} % | |`);
  out(`| CPU per agent ended after the warm-up, first half / second half of the minutes | ${f(perAgent(after.slice(0, Math.ceil(after.length / 2))), 2)} / ${f(perAgent(after.slice(Math.ceil(after.length / 2))), 2)} s | flat |`);
  out(`| state db at the end (with WAL) / grown since minute 1 | ${f(mb(end.bytes), 2)} MB / ${f(mb(growth), 2)} MB | |`);
  out(`| what it holds: transcripts + records (${end.held.agents} agents' rows) | ${f(mb(end.held.transcripts), 2)} + ${f(mb(end.held.records), 2)} = ${f(mb(held), 2)} MB | db about what it holds |`);
  out(`| db size / what it holds | ${f(end.bytes / held, 2)} | |`);
  out(`| transcripts' text read from their records (stored once) | ${f(mb(end.held.referenced), 2)} M characters | |`);
  out(`| after \`tai record gc\` (${(gc.out ?? 'failed').trim().replace(/\n/g, ' ')}) | ${f(mb(gc.bytes), 2)} MB | back to what is kept |`);
  out(`| after \`tai record gc --older-than ${GC_AGE}\` (${(aged.out ?? 'failed').trim().replace(/\n/g, ' ')}) | ${f(mb(aged.bytes), 2)} MB | |`);
  out(`| agents started / ended / ended not 0 / questions answered | ${counts.started} / ${counts.ended} / ${counts.failed} / ${counts.answered} | |`);
  out(`| the host's load average at the end (two shared cores) | ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')} | |`);
}
