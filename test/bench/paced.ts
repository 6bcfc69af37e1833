/**
 * Paced reading benchmark (src/io/agents/paced-read.ts, docs/performance.md):
 * real children write through real pipes, read paced and, as the peer in the
 * same run, unpaced ('data' as it comes). Two cases:
 * - chatty: a child writing a short line every few milliseconds, as an agent
 *   streams tokens: how many pieces reach tai, in how many pacer ticks;
 * - flood: a child writing 1 MiB at once: how many pacer ticks the flood
 *   costs (64 KiB per tick would take 16) and its wall time.
 * A benchmark reports; it never fails.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { pacedData, pacerTicks, withPacedPipes } from '../../src/io/agents/paced-read.js';

/** One child's script and how many bytes it writes in all. */
interface Writer {
  readonly name: string;
  readonly writes: number;
  readonly bytes: number;
  readonly script: string;
}

/** What one read of a child measured. */
interface Reading {
  readonly pieces: number;
  readonly ticks: number;
  readonly bytes: number;
  readonly ms: number;
}

/** A child writing `lines` short lines, one every `gapMs`. */
function chatty(lines: number, gapMs: number): Writer {
  const script = `let i = 0; const t = setInterval(() => { process.stdout.write('line ' + i + '\\n'); if (++i === ${lines}) clearInterval(t); }, ${gapMs});`;
  const bytes = Array.from({ length: lines }, (_, i) => `line ${i}\n`.length).reduce((a, b) => a + b, 0);
  return { name: `chatty: ${lines} lines, one every ${gapMs} ms`, writes: lines, bytes, script };
}

/** A child writing `bytes` in one write. */
function flood(bytes: number): Writer {
  const script = `process.stdout.write('x'.repeat(${bytes}), () => process.exit(0));`;
  return { name: `flood: ${bytes / 2 ** 20} MiB in one write`, writes: 1, bytes, script };
}

/** Reads one run of `writer`, paced or as it comes, until its stdout ends. */
async function read(writer: Writer, paced: boolean): Promise<Reading> {
  const start = (): ChildProcessByStdio<null, Readable, null> => spawn(process.execPath, ['-e', writer.script], { stdio: ['ignore', 'pipe', 'ignore'] });
  const t0 = performance.now();
  const ticks0 = pacerTicks();
  const child = paced ? withPacedPipes(start) : start();
  let pieces = 0;
  let bytes = 0;
  const onData = (chunk: Buffer): void => {
    pieces += 1;
    bytes += chunk.length;
  };
  if (paced) pacedData<Buffer>(child.stdout, onData);
  else child.stdout.on('data', onData);
  await once(child.stdout, 'end');
  return { pieces, ticks: pacerTicks() - ticks0, bytes, ms: performance.now() - t0 };
}

/** The median of `runs` readings, measure by measure. */
function median(runs: readonly Reading[]): Reading {
  const mid = (pick: (r: Reading) => number): number => {
    const sorted = runs.map(pick).sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)] ?? 0;
  };
  return { pieces: mid((r) => r.pieces), ticks: mid((r) => r.ticks), bytes: mid((r) => r.bytes), ms: mid((r) => r.ms) };
}

/** Runs the benchmark and prints its table (medians of `runs` runs of each case and reading). */
export async function run(opts: { runs?: number } = {}): Promise<void> {
  const runs = opts.runs ?? 5;
  const rows: string[] = [];
  for (const writer of [chatty(60, 5), chatty(200, 20), flood(1 << 20), flood(8 << 20)]) {
    for (const paced of [true, false]) {
      const readings: Reading[] = [];
      for (let i = 0; i < runs; i++) readings.push(await read(writer, paced));
      const m = median(readings);
      const whole = readings.every((r) => r.bytes === writer.bytes) ? 'yes' : 'NO';
      const ticks = paced ? String(m.ticks) : '-';
      rows.push(`| ${writer.name} | ${paced ? 'paced' : 'as it comes'} | ${writer.writes} | ${m.pieces} | ${ticks} | ${m.ms.toFixed(0)} | ${whole} |`);
    }
  }
  process.stdout.write(`\n## paced reading: medians of ${runs} runs\n\n`);
  process.stdout.write('| child | reading | writes | pieces | pacer ticks | ms from spawn to end | all bytes |\n|---|---|---|---|---|---|---|\n');
  for (const row of rows) process.stdout.write(`${row}\n`);
}
