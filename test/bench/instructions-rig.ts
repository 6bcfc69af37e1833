/**
 * The cockpit's streaming path in one process, time simulated, for the
 * instruction count (instructions.ts): a board of 8 panels with its status
 * line, the pane source and the drawing with Ink's chrome, into a terminal
 * that counts bytes; agents' chunks read as the demo's drain reads them.
 */
import { lineReader, demoEventOf } from '../../src/io/agents/spawn/demo-agents.js';
import { startDrawing } from '../../src/io/cockpit/drawing/drawing.js';
import { createPaneSource } from '../../src/io/terminal/pane-source.js';
import { XtermScreen } from '../../src/io/terminal/screen.js';
import { createAgentList } from '../../store/agent-list.js';
import { createBoard } from '../../store/board.js';
import { createMentionPrompt } from '../../store/mention-prompt.js';
import { createPrefixSign } from '../../store/prefix-sign.js';
import { createSteerLine } from '../../store/steer-line.js';
import { quietTerminal } from '../helpers/quiet-terminal.js';

const COLS = 160;
const ROWS = 60;
const T0 = 1_000_000;
const STEP_MS = 100;

/** The rig: `read` a chunk an agent, `flush` the board, draw a `frame`. */
export async function rig(agents = 8) {
  let t = T0;
  const now = (): number => t;
  const main = new XtermScreen(COLS, ROWS);
  const source = createPaneSource(main, 0, now, false);
  const board = createBoard({ createScreen: (c, r) => source.createScreen(c, r), cols: COLS, rows: ROWS, statusLine: true });
  source.attach(board);
  let bytes = 0;
  let renders = 0;
  const drawing = startDrawing({
    terminal: quietTerminal(COLS, ROWS, (data) => (bytes += data.length)),
    board,
    source,
    prompt: createMentionPrompt(),
    list: createAgentList(),
    steer: createSteerLine(),
    prefix: 'C-]',
    name: 'tai bench',
    now,
    prefixSign: createPrefixSign(),
    cursor: () => null,
    log: () => {},
    rendered: () => renders++,
  });
  const ids = Array.from({ length: agents }, (_, i) => board.getState().open({ label: `demo stream #${i + 1}`, task: 'explain the module layout in plain words' }, t));
  const readers = ids.map((id) =>
    lineReader((line) => {
      const event = demoEventOf(line);
      if (event !== undefined) board.getState().emit(id, event, t);
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
    renders: () => renders,
    read(chunks: readonly string[]): void {
      readers.forEach((reader, i) => reader.chunk(chunks[i]!));
    },
    flush(step: number): void {
      t = T0 + (step + 1) * STEP_MS;
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
