/**
 * The soak's tables (day-soak.ts): a row per minute, then the verdicts.
 * CPU is judged per unit of work (per agent ended, per MB streamed), the
 * warm-up's end (minutes around WARM_UP_MIN, summed) against the last
 * minutes (summed): a shared machine's load moves a percentage of a core
 * far more than the cost of a unit of work. The database is judged against
 * what its transcripts and records hold, each minute and after
 * `tai record gc`.
 */
import { readFileSync } from 'node:fs';
import type { DbLook } from './soak-db.js';
import { heldBytes } from './soak-db.js';
import type { LoadCounts } from './soak-load.js';

/** Minutes before RSS and CPU are taken as settled (start-up, V8's compiling, the first panels). */
export const WARM_UP_MIN = 5;

/** Minutes summed on each side of a CPU verdict. */
const WINDOW = 3;

/** `tai record gc` once more with this age: what a day's run gives back of agents finished before its last minutes. */
export const GC_AGE = '10m';

/** One minute's row. */
export interface Minute {
  readonly minute: number;
  /** The lowest of the minute's RSS samples: what garbage collection cannot give back. */
  readonly rssMb: number;
  readonly rssPeakMb: number;
  /** CPU seconds of the server in the minute. */
  readonly cpuS: number;
  readonly endedInMinute: number;
  /** MB the agents streamed into transcripts in the minute. */
  readonly streamedMb: number;
  /** Transcript rows written in the minute. */
  readonly rowsInMinute: number;
  /** The database with its WAL, the WAL alone, and what it holds (transcripts' and records' text), MB. */
  readonly dbMb: number;
  readonly walMb: number;
  readonly heldMb: number;
  readonly counts: LoadCounts;
  readonly attachMs: number | undefined;
  /** The host's load average over the last minute. */
  readonly load1: number;
}

/** A `tai record gc` run: the database's bytes and what it holds after it, what it printed, how long it took. */
export interface GcRun {
  readonly bytes: number;
  readonly held: number;
  readonly out: string | undefined;
  readonly ms: number;
}

export const f = (n: number | undefined, d = 1): string => (n !== undefined && Number.isFinite(n) ? n.toFixed(d) : 'n/a');
const mb = (bytes: number): number => bytes / (1 << 20);

/** CPU seconds per agent ended and per MB streamed over some minutes (summed, so one noisy minute weighs as much as it lasted). */
function costOf(rows: readonly Minute[]): { perAgent: number; perMb: number; pct: number; load: number } {
  const cpu = rows.reduce((s, r) => s + r.cpuS, 0);
  const ended = rows.reduce((n, r) => n + r.endedInMinute, 0);
  const streamed = rows.reduce((n, r) => n + r.streamedMb, 0);
  return { perAgent: ended > 0 ? cpu / ended : NaN, perMb: streamed > 0 ? cpu / streamed : NaN, pct: rows.length > 0 ? (cpu / (60 * rows.length)) * 100 : NaN, load: rows.reduce((s, r) => s + r.load1, 0) / rows.length };
}

const change = (from: number, to: number): string => `${f(from, 2)} -> ${f(to, 2)} (${to >= from ? '+' : ''}${f((to / from - 1) * 100)} %)`;

/** Prints the per-minute table and the verdicts against the goals. */
export function printTable(rows: readonly Minute[], end: { look: DbLook; perRow: { rows: number; bytes: number } }, gc: GcRun, aged: GcRun, counts: LoadCounts): void {
  const out = (l: string): boolean => process.stdout.write(`${l}\n`);
  out('\n| minute | server RSS MB, lowest / highest of 12 | CPU % of a core | CPU s per agent ended | CPU s per MB streamed | MB streamed | transcript rows | db MB (WAL) | held MB | db / held | agents started / ended | load 1 min |');
  out('|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    out(`| ${r.minute} | ${f(r.rssMb)} / ${f(r.rssPeakMb)} | ${f((r.cpuS / 60) * 100)} | ${f(r.cpuS / r.endedInMinute, 2)} | ${f(r.cpuS / r.streamedMb, 2)} | ${f(r.streamedMb, 2)} | ${r.rowsInMinute} | ${f(r.dbMb, 2)} (${f(r.walMb, 2)}) | ${f(r.heldMb, 2)} | ${f(r.dbMb / r.heldMb, 2)} | ${r.counts.started} / ${r.counts.ended} | ${f(r.load1, 1)} |`);
  }
  const warm = Math.min(WARM_UP_MIN, rows.length);
  const base = rows[warm - 1] ?? rows[0];
  const last = rows.at(-1);
  const around = rows.slice(Math.max(0, warm - 1 - Math.floor(WINDOW / 2)), Math.max(0, warm - 1 - Math.floor(WINDOW / 2)) + WINDOW);
  const tail = rows.slice(-WINDOW);
  const a = costOf(around);
  const b = costOf(tail);
  const span = (w: readonly Minute[]): string => (w.length === 0 ? 'none' : `minutes ${w[0]?.minute}-${w.at(-1)?.minute}`);
  const held = heldBytes(end.look);
  const bytes = end.look.fileBytes + end.look.walBytes;
  const minutes = rows.length;
  // The demo's 4 agents are panels without a transcript: the rows are the 4 started slots'.
  const rowsPerAgentMinute = rows.reduce((n, r) => n + r.rowsInMinute, 0) / Math.max(1, minutes) / 4;
  out('\n| measure | value | goal |');
  out('|---|---|---|');
  out(`| RSS growth from minute ${warm} to minute ${last?.minute ?? 'n/a'}, lowest samples | ${f((last?.rssMb ?? NaN) - (base?.rssMb ?? NaN))} MB (${f(base?.rssMb)} -> ${f(last?.rssMb)}) | at most 5 MB |`);
  out(`| CPU s per MB streamed, warm-up's end (${span(around)}) -> last (${span(tail)}) | ${change(a.perMb, b.perMb)} | within 10 % |`);
  out(`| CPU s per agent ended, same minutes | ${change(a.perAgent, b.perAgent)} | within 10 % |`);
  out(`| CPU % of a core, same minutes (the load average: ${f(a.load)} -> ${f(b.load)}) | ${change(a.pct, b.pct)} | |`);
  out(`| transcript rows per minute of a started agent (4 at a time) / bytes of pages per row | ${f(rowsPerAgentMinute)} / ${f(end.perRow.bytes, 0)} (${end.perRow.rows} rows) | |`);
  out(`| state db at the end (its WAL) | ${f(mb(bytes), 2)} MB (${f(mb(end.look.walBytes), 2)} MB) | |`);
  out(`| what it holds: transcripts + records (${end.look.agents} agents' rows; ${f(end.look.referenced / 1e6, 2)} M characters read from records) | ${f(mb(end.look.transcripts), 2)} + ${f(mb(end.look.records), 2)} = ${f(mb(held), 2)} MB | |`);
  out(`| db / held at the end | ${f(bytes / held, 2)} | about 1 |`);
  out(`| after \`tai record gc\`, ${f(gc.ms / 1000, 1)} s (${(gc.out ?? 'failed').trim().replace(/\n/g, ' ')}) | ${f(mb(gc.bytes), 2)} MB for ${f(mb(gc.held), 2)} MB held: ${f(gc.bytes / gc.held, 2)} | back to what is kept |`);
  out(`| after \`tai record gc --older-than ${GC_AGE}\`, ${f(aged.ms / 1000, 1)} s (${(aged.out ?? 'failed').trim().replace(/\n/g, ' ')}) | ${f(mb(aged.bytes), 2)} MB for ${f(mb(aged.held), 2)} MB held: ${f(aged.bytes / aged.held, 2)} | |`);
  out(`| agents started / ended / ended not 0 / questions answered | ${counts.started} / ${counts.ended} / ${counts.failed} / ${counts.answered} | |`);
  out(`| the host's load average at the end (two shared cores) | ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')} | |`);
}
