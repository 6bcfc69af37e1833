/**
 * The server's memory by kind, per minute of the soak (day-soak.ts with
 * TAI_SOAK_HEAP_LOG; the samples are server-heap.cjs's): what V8's heap
 * holds live, what it keeps committed, and what the process has beside it
 * (malloc: SQLite's page cache, xterm's and node-pty's buffers, glibc's
 * arenas). A slope in the live heap is a leak in JavaScript; a slope beside
 * it is native; committed pages above a flat live heap are V8's sizing,
 * which falls back at its next collections.
 */
import { existsSync, readFileSync } from 'node:fs';
import { f, WARM_UP_MIN } from './soak-report.js';

/** One line of server-heap.cjs. */
interface Sample {
  readonly t: number;
  readonly afterGc?: boolean;
  readonly rss: number;
  readonly heapUsed: number;
  readonly heapTotal: number;
  readonly external: number;
  readonly arrayBuffers: number;
  readonly anon: number;
  /** Committed bytes by V8 space (newer logs only). */
  readonly committed?: Readonly<Record<string, number>>;
  readonly spaces?: Readonly<Record<string, number>>;
}

const mb = (bytes: number): number => bytes / (1 << 20);

/** Prints a row per minute from the samples in `file` (nothing when there are none). */
export function printHeapTable(file: string): void {
  if (!existsSync(file)) return;
  const samples = readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Sample);
  const t0 = samples[0]?.t;
  if (t0 === undefined) return;
  const minutes = new Map<number, Sample[]>();
  for (const s of samples) {
    const m = Math.floor((s.t - t0) / 60_000) + 1;
    minutes.set(m, [...(minutes.get(m) ?? []), s]);
  }
  const out = (l: string): boolean => process.stdout.write(`${l}\n`);
  out('\n| minute | RSS MB, lowest | V8 heap used, lowest (after a full GC) | V8 heap committed, lowest | new space committed | old space committed / used, lowest | external (array buffers) | anonymous memory | anonymous beside V8 heap |');
  out('|---|---|---|---|---|---|---|---|---|');
  const space = (rows: Sample[], of: 'committed' | 'spaces', name: string): string => {
    const values = rows.map((s) => s[of]?.[name]).filter((v): v is number => v !== undefined);
    return values.length > 0 ? f(mb(Math.min(...values))) : 'n/a';
  };
  const low = (rows: Sample[], key: (s: Sample) => number): number => Math.min(...rows.map(key));
  const live = (rows: Sample[]): number => {
    const forced = rows.filter((s) => s.afterGc);
    return mb(low(forced.length > 0 ? forced : rows, (s) => s.heapUsed));
  };
  for (const [m, rows] of minutes) {
    const forced = rows.filter((s) => s.afterGc);
    out(
      `| ${m} | ${f(mb(low(rows, (s) => s.rss)))} | ${f(mb(low(rows, (s) => s.heapUsed)))} (${forced.length > 0 ? f(mb(low(forced, (s) => s.heapUsed))) : 'n/a'}) | ${f(mb(low(rows, (s) => s.heapTotal)))} | ` +
        `${space(rows, 'committed', 'new_space')} | ${space(rows, 'committed', 'old_space')} / ${space(rows, 'spaces', 'old_space')} | ` +
        `${f(mb(low(rows, (s) => s.external)))} (${f(mb(low(rows, (s) => s.arrayBuffers)))}) | ${f(mb(low(rows, (s) => s.anon)))} | ${f(mb(low(rows, (s) => s.anon - s.heapTotal)))} |`,
    );
  }
  // The verdict by kind: the minutes around the warm-up's end against the last three (each the lowest of its window).
  const all = [...minutes.keys()];
  const last = all.at(-1) ?? 0;
  const window = (from: number, to: number): Sample[] => all.filter((m) => m >= from && m <= to).flatMap((m) => minutes.get(m) ?? []);
  const early = window(WARM_UP_MIN - 1, WARM_UP_MIN + 1);
  const late = window(last - 2, last);
  if (early.length === 0 || late.length === 0 || last <= WARM_UP_MIN + 1) return;
  const beside = (rows: Sample[]): number => mb(low(rows, (s) => s.anon - s.heapTotal));
  const committed = (rows: Sample[]): number => mb(low(rows, (s) => s.heapTotal));
  out(`\n| by kind, minutes ${WARM_UP_MIN - 1}-${WARM_UP_MIN + 1} -> ${last - 2}-${last} (lowest of each) | MB |`);
  out('|---|---|');
  out(`| V8 heap used${early.some((s) => s.afterGc) ? ' after a full GC' : ''} (a slope here is a leak in JavaScript) | ${f(live(early))} -> ${f(live(late))} |`);
  out(`| anonymous memory beside V8's heap (a slope here is native) | ${f(beside(early))} -> ${f(beside(late))} |`);
  out(`| V8 heap committed (its sizing; falls back at later collections) | ${f(committed(early))} -> ${f(committed(late))} |`);
}
