/** Mounts the real Cockpit on a real board and real screens, with Ink writing into a recorder of frames. */
import { PassThrough, Writable } from 'node:stream';
import { render } from 'ink';
import stripAnsi from 'strip-ansi';
import { Cockpit } from '../../components/Cockpit.js';
import { DEFAULT_PREFIX } from '../../src/core/input/keys.js';
import { createPaneSource } from '../../src/io/terminal/pane-source.js';
import { XtermScreen } from '../../src/io/terminal/screen.js';
import { createBoard } from '../../store/board.js';
import type { MentionPrompt } from '../../store/mention-prompt.js';

class FrameRecorder extends Writable {
  frames: string[] = [];
  constructor(
    public columns: number,
    public rows: number,
  ) {
    super();
  }
  override write(chunk: unknown): boolean {
    this.frames.push(String(chunk));
    return true;
  }
}

/** A mounted cockpit of `cols` x `rows`, with the mention prompt's store when given. */
export function mountCockpit(cols: number, rows: number, options: { prompt?: MentionPrompt; maxLive?: number } = {}) {
  const main = new XtermScreen(cols, rows);
  const source = createPaneSource(main, 0);
  const board = createBoard({
    createScreen: (c, r) => source.createScreen(c, r),
    mainHistory: () => main.history(),
    cols,
    rows,
    ...(options.maxLive === undefined ? {} : { maxLive: options.maxLive }),
  });
  source.attach(board);
  const out = new FrameRecorder(cols, rows);
  const stdin = Object.assign(new PassThrough(), { isTTY: false }) as unknown as NodeJS.ReadStream;
  const ink = render(<Cockpit board={board} source={source} prefix={DEFAULT_PREFIX} {...(options.prompt ? { prompt: options.prompt } : {})} />, {
    stdout: out as unknown as NodeJS.WriteStream,
    stdin,
    debug: true,
    exitOnCtrlC: false,
    patchConsole: false,
  });
  const frame = (): string => out.frames.at(-1) ?? '';
  return {
    board,
    main,
    source,
    /** The last frame, SGR codes included. */
    frame,
    /** The last frame's rows as plain text, padded to the window's width. */
    text: (): string[] => stripAnsi(frame()).split('\n').map((r) => r.padEnd(cols)),
    unmount: () => {
      ink.unmount();
      source.stop();
    },
  };
}
