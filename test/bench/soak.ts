/**
 * The soak: unique streamed text through the whole drawing path in one
 * process (8 agents on a real board, real screens, the real components in
 * Ink, the differential output stage into a byte counter), time simulated.
 * Ink's text caches never evict (ink#986); the cockpit keeps streamed text
 * out of them, so heap and RSS must stay flat. Reports MB after a full GC.
 * The cockpit bench's TAI_BENCH_ONLY=soak; `npm run bench -- soak` is the
 * real server's, for half an hour or more (day-soak.ts).
 */
import { PassThrough, Writable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import React from 'react';
import { render } from 'ink';
import { Cockpit } from '../../components/Cockpit.js';
import { DEFAULT_PREFIX } from '../../src/core/input/keys.js';
import { createPaneSource } from '../../src/io/terminal/pane-source.js';
import { XtermScreen } from '../../src/io/terminal/screen.js';
import { TermOutput } from '../../src/io/terminal/term-output.js';
import { createBoard } from '../../store/board.js';

/** What the soak measured. */
export interface SoakResult {
  readonly simulatedSeconds: number;
  /** Heap used (MB) after a GC at 10 %, 50 % and 100 % of the run. */
  readonly heap: number[];
  readonly rss: number[];
  readonly bytes: number;
}

const STEP_S = 0.5;
const TOKENS_PER_S = 500;

/** Streams `simulatedSeconds` of unique text into 8 panels, drawing a frame per step. */
export async function runSoak(options: { simulatedSeconds: number }): Promise<SoakResult> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const cols = 160;
  const rows = 60;
  const main = new XtermScreen(cols, rows);
  const source = createPaneSource(main, 0, Date.now, false); // overlay mode, as in the cockpit
  const board = createBoard({ createScreen: (c, r) => source.createScreen(c, r), cols, rows });
  source.attach(board);
  source.onFrame(() => out.draw(source.overlays(), null));
  const out = new TermOutput(() => {}, cols, rows);
  const sink = Object.assign(
    new Writable({
      write(chunk: unknown, _enc, cb) {
        out.setChrome(String(chunk));
        cb();
      },
    }),
    { columns: cols, rows },
  );
  const ink = render(React.createElement(Cockpit, { board, source, prefix: DEFAULT_PREFIX }), {
    stdout: sink as unknown as NodeJS.WriteStream,
    stdin: Object.assign(new PassThrough(), { isTTY: false }) as unknown as NodeJS.ReadStream,
    debug: true,
    exitOnCtrlC: false,
    patchConsole: false,
  });
  let now = 1_000_000;
  const ids = Array.from({ length: 8 }, (_, i) => board.getState().open({ label: `soak #${i + 1}` }, now));
  const steps = Math.round(options.simulatedSeconds / STEP_S);
  const marks = new Set([Math.round(steps / 10), Math.round(steps / 2), steps]);
  const heap: number[] = [];
  const rss: number[] = [];
  let n = 0;
  for (let step = 1; step <= steps; step++) {
    now += STEP_S * 1000;
    for (const id of ids) {
      let text = '';
      for (let t = 0; t < TOKENS_PER_S * STEP_S; t++) text += `w${(n++).toString(36)}${t % 9 === 8 ? '\n' : ' '}`;
      board.getState().emit(id, { type: 'text', text }, now);
    }
    board.getState().tick(now);
    board.getState().flush(now);
    await Promise.all(ids.map((id) => (board.getState().screenOf(id) as XtermScreen | undefined)?.parsed()));
    source.flushNow();
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    if (marks.has(step)) {
      gc();
      const m = process.memoryUsage();
      heap.push(m.heapUsed / 1e6);
      rss.push(m.rss / 1e6);
    }
  }
  ink.unmount();
  source.stop();
  return { simulatedSeconds: options.simulatedSeconds, heap, rss, bytes: out.stats.bytes };
}
