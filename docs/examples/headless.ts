/**
 * tai headless: no Ink, no screen (docs/embedding.md). A board supervises two
 * in-process workers; the host hears every event through `tapEvents` and the
 * states through `board.subscribe` and `status(now)`. Run it from a checkout:
 *
 *   npx tsc -p . && node dist/docs/examples/headless.js
 *
 * A real host imports from 'tai' instead of '../../src/index.js'.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createBoard, startAgentService, startBoardClock, tapEvents, type AgentEvent, type AgentResult, type PanelState } from '../../src/index.js';

/** What the headless run saw. */
export interface HeadlessRun {
  /** Every event, in order, with its panel's id. */
  readonly events: { readonly id: number; readonly event: AgentEvent }[];
  /** Each state change seen through the board's subscription, as `#id state`. */
  readonly states: string[];
  readonly results: readonly (AgentResult | undefined)[];
}

/** Runs two workers to their end on a board without a screen; `dbPath` holds long results. */
export async function runHeadless(dbPath: string, stepMs = 20): Promise<HeadlessRun> {
  const board = createBoard(); // no screen factory: panels are supervised, never drawn
  const clock = startBoardClock(board);
  const agents = startAgentService(board, { dbPath });
  const events: HeadlessRun['events'] = [];
  const states: string[] = [];
  const untap = tapEvents(board, (id, event) => events.push({ id, event }));
  const last = new Map<number, PanelState>();
  const unsubscribe = board.subscribe((s) => {
    for (const row of s.status(Date.now()).agents) {
      if (last.get(row.id) === row.state) continue;
      last.set(row.id, row.state);
      states.push(`#${row.id} ${row.state}`);
    }
  });
  const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  try {
    const now = Date.now();
    const a = agents.service.spawnWorker({ label: 'lint' }, async (signal, emit) => {
      emit({ type: 'tool_start', name: 'eslint', args: 'src/' });
      await wait(stepMs);
      emit({ type: 'tool_end', name: 'eslint', result: '0 problems', failed: false });
      return signal.aborted ? undefined : 'lint clean';
    }, now);
    const b = agents.service.spawnWorker({ label: 'typecheck' }, async (_signal, emit) => {
      await wait(stepMs);
      emit({ type: 'text', text: 'no type errors\n' });
    }, now);
    const results = await Promise.all([agents.service.poll(a.id, 10_000), agents.service.poll(b.id, 10_000)]);
    return { events, states, results };
  } finally {
    untap();
    unsubscribe();
    agents.close();
    clock.stop();
  }
}

/** Prints what a headless run saw. */
async function main(): Promise<void> {
  const run = await runHeadless(join(mkdtempSync(join(tmpdir(), 'tai-headless-')), 'tai.db'));
  for (const { id, event } of run.events) process.stdout.write(`#${id} ${event.type}\n`);
  process.stdout.write(`${run.states.join('\n')}\n`);
  for (const r of run.results) process.stdout.write(`#${r?.id} ${r?.state}: ${r?.text.trim()}\n`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) void main();
