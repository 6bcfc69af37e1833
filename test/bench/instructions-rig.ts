/**
 * The cockpit's streaming path in one process, time simulated, for the
 * instruction count (instructions.ts): a board of 8 panels with its status
 * line, the pane source and the drawing with Ink's chrome, into a terminal
 * that counts bytes; agents' chunks read as the demo's drain reads them.
 */
import { lineReader, demoEventOf } from '../../src/io/agents/spawn/demo-agents.js';
import { drawnCockpit } from '../helpers/drawn-cockpit.js';

const COLS = 160;
const ROWS = 60;
const T0 = 1_000_000;
const STEP_MS = 100;

/** The rig: `read` a chunk an agent, `flush` the board, draw a `frame`. */
export async function rig(agents = 8) {
  let bytes = 0;
  const c = drawnCockpit(COLS, ROWS, T0, (data) => (bytes += data.length), 'tai bench');
  const { board, source, drawing } = c;
  const ids = Array.from({ length: agents }, (_, i) => board.getState().open({ label: `demo stream #${i + 1}`, task: 'explain the module layout in plain words' }, c.now()));
  const readers = ids.map((id) =>
    lineReader((line) => {
      const event = demoEventOf(line);
      if (event !== undefined) board.getState().emit(id, event, c.now());
    }),
  );
  // Ink's first render and its frame, before any count.
  for (let i = 0; i < 1000 && bytes === 0; i++) await new Promise((r) => setImmediate(r));
  source.flushNow();
  await new Promise((r) => setImmediate(r));
  return {
    ids,
    board,
    bytes: () => bytes,
    /** Ink's renders of the chrome so far. */
    renders: c.renders,
    read(chunks: readonly string[]): void {
      readers.forEach((reader, i) => reader.chunk(chunks[i]!));
    },
    flush(step: number): void {
      const t = c.at(T0 + (step + 1) * STEP_MS);
      if (step % 10 === 9) board.getState().tick(t);
      board.getState().flush(t);
    },
    /** The frame the flush cued: the pane source draws it in an immediate after the React update it waits for. */
    async frame(): Promise<void> {
      source.flushNow();
      await new Promise((r) => setImmediate(r));
    },
    stop(): void {
      drawing.stop();
    },
  };
}
