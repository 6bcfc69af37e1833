/**
 * Board benchmark: 8 panels x 500 tokens/s of varied text through
 * the real board, real @xterm/headless screens and the real flush clock for
 * a fixed time. Prints events/s, flushes/s (the board coalesces: at most 40/s
 * whatever the number of agents), bytes dropped, and heap before and after.
 * A benchmark reports; it never fails.
 */
import { createBoard } from '../../store/board.js';
import { startBoardClock } from '../../src/io/cockpit/board-clock.js';
import { xtermScreens } from '../../src/io/terminal/screen.js';
import type { AgentEvent } from '../../src/core/events.js';

const WORDS = (
  'the quick brown fox jumps over a lazy dog while agents stream tokens ' +
  'über naïve café 漢字 かな 🙂 refactor src/core/layout.ts and run npm test ' +
  '\x1b[1mbold\x1b[0m \x1b[31mred\x1b[0m function(args) => { return 42; }'
).split(' ');

/** Deterministic varied events: words, line breaks, a tool call now and then. */
function* tokens(seed: number): Generator<AgentEvent> {
  let n = seed;
  for (;;) {
    n = (n * 1103515245 + 12345) & 0x7fffffff;
    const word = WORDS[n % WORDS.length] ?? 'x';
    if (n % 97 === 0) {
      yield { type: 'tool_start', name: 'shell', args: `ls -la /tmp/${n}` };
      yield { type: 'tool_end', name: 'shell', result: `total ${n}\nfile-a\nfile-b`, failed: false };
    } else {
      yield { type: 'text', text: n % 13 === 0 ? `${word}\n` : `${word} ` };
    }
  }
}

/** Options of the board benchmark. */
export interface BoardBenchOptions {
  readonly panels?: number;
  readonly tokensPerSecond?: number;
  readonly seconds?: number;
}

/** Runs the benchmark and prints its table. */
export async function run(opts: BoardBenchOptions = {}): Promise<void> {
  const panels = opts.panels ?? 8;
  const rate = opts.tokensPerSecond ?? 500;
  const seconds = opts.seconds ?? 10;
  globalThis.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const board = createBoard({ cols: 160, rows: 60, createScreen: xtermScreens });
  const ids = Array.from({ length: panels }, (_, i) => board.getState().open({ label: `agent #${i + 1}`, task: 'bench' }, Date.now()));
  const streams = ids.map((_, i) => tokens(i + 1));
  const clock = startBoardClock(board);
  const start = Date.now();
  const cpuStart = process.cpuUsage();
  let emitted = 0;
  await new Promise<void>((resolve) => {
    const step = setInterval(() => {
      const now = Date.now();
      const due = Math.floor(((now - start) / 1000) * rate);
      ids.forEach((id, i) => {
        const stream = streams[i]!;
        for (let k = emitted / panels; k < due; k++) board.getState().emit(id, stream.next().value, now);
      });
      emitted = due * panels;
      if (now - start >= seconds * 1000) {
        clearInterval(step);
        resolve();
      }
    }, 10);
  });
  const elapsed = (Date.now() - start) / 1000;
  const cpu = process.cpuUsage(cpuStart);
  clock.stop();
  const status = board.getState().status(Date.now());
  const dropped = status.agents.reduce((sum, r) => sum + r.droppedBytes, 0);
  globalThis.gc?.();
  const heapAfter = process.memoryUsage().heapUsed;
  const rows: [string, string][] = [
    ['panels x tokens/s', `${panels} x ${rate}`],
    ['seconds', elapsed.toFixed(1)],
    ['events/s', (board.counters.events / elapsed).toFixed(0)],
    ['flushes/s (cap 40)', (board.counters.flushes / elapsed).toFixed(1)],
    ['bytes to screens/s', (board.counters.bytesWritten / elapsed).toFixed(0)],
    ['bytes dropped', String(dropped)],
    ['CPU (user+sys) s', ((cpu.user + cpu.system) / 1e6).toFixed(2)],
    ['heap before MB', (heapBefore / 2 ** 20).toFixed(1)],
    ['heap after MB', (heapAfter / 2 ** 20).toFixed(1)],
  ];
  process.stdout.write(`\n## board: ${panels} panels streaming\n\n| measure | value |\n|---|---|\n`);
  for (const [k, v] of rows) process.stdout.write(`| ${k} | ${v} |\n`);
}
