/**
 * A drawn cockpit in one process, its clock simulated: a real board with its status line, the pane source, Ink's
 * chrome and the output stage, drawn into `write` (the drawing's and the instruction count's tests).
 */
import { startDrawing } from '../../src/io/cockpit/drawing/drawing.js';
import { createPaneSource } from '../../src/io/terminal/pane-source.js';
import { XtermScreen } from '../../src/io/terminal/screen.js';
import { createAgentList } from '../../store/agent-list.js';
import { createBoard } from '../../store/board.js';
import { createMentionPrompt } from '../../store/mention-prompt.js';
import { createPrefixSign } from '../../store/prefix-sign.js';
import { createSteerLine } from '../../store/steer-line.js';
import { quietTerminal } from './quiet-terminal.js';

/** The cockpit's parts, and its clock: `now()` reads it, `at(t)` sets it. */
export function drawnCockpit(cols: number, rows: number, t0: number, write: (data: string) => void, name = 'tai test') {
  let t = t0;
  const now = (): number => t;
  const source = createPaneSource(new XtermScreen(cols, rows), 0, now, false);
  const board = createBoard({ createScreen: (c, r) => source.createScreen(c, r), cols, rows, statusLine: true });
  source.attach(board);
  const list = createAgentList();
  const sign = createPrefixSign();
  let renders = 0;
  const drawing = startDrawing({
    terminal: quietTerminal(cols, rows, write),
    board,
    source,
    prompt: createMentionPrompt(),
    list,
    steer: createSteerLine(),
    prefix: 'C-]',
    name,
    now,
    prefixSign: sign,
    cursor: () => null,
    log: () => {},
    rendered: () => renders++,
  });
  return {
    board,
    source,
    list,
    sign,
    drawing,
    now,
    /** Sets the clock to `time` and returns it. */
    at(time: number): number {
      t = time;
      return t;
    },
    /** How many times Ink has rendered the chrome. */
    renders: () => renders,
  };
}
