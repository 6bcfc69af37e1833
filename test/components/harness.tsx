/** Mounts the real Cockpit on a real board and real screens, with Ink writing into a recorder of frames. */
import { PassThrough, Writable } from 'node:stream';
import { render } from 'ink';
import stripAnsi from 'strip-ansi';
import { Cockpit } from '../../components/Cockpit.js';
import { DEFAULT_PREFIX } from '../../src/core/input/keys.js';
import { createPaneSource } from '../../src/io/terminal/pane-source.js';
import { XtermScreen } from '../../src/io/terminal/screen.js';
import { createBoard } from '../../store/board.js';
import { createMentionPrompt, type MentionPrompt } from '../../store/mention-prompt.js';
import { createAgentList } from '../../store/agent-list.js';
import { createPrefixSign } from '../../store/prefix-sign.js';
import { dispatch } from '../../store/dispatch.js';
import { KeyScanner } from '../../src/core/input/keys.js';
import { routeKeys } from '../../src/io/cockpit/keys/key-router.js';
import { MentionController } from '../../src/io/cockpit/keys/mentions.js';
import type { AgentEntry } from '../../src/core/agents/agent-registry.js';
import { locateAgent } from '../../src/io/agents/spawn/agent-config.js';
import { TEST_PATH } from '../helpers/test-env.js';

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

/** How a test cockpit is mounted. */
export interface MountOptions {
  prompt?: MentionPrompt;
  maxLive?: number;
  /** NO_COLOR for tai's own chrome. */
  noColor?: boolean;
  /** The status line on the last row; default true (the cockpit's). */
  statusLine?: boolean;
  /** The registry the mention line of `type` completes from. */
  entries?: readonly AgentEntry[];
  /** The time the key path and the status line see; default the real clock. */
  now?: () => number;
}

/**
 * A mounted cockpit of `cols` x `rows`, with the mention prompt's store when
 * given, and `type` for the real key path (scanner, router, dispatcher), its
 * prefix lapse on a manual timer (`lapse()` runs it).
 */
export function mountCockpit(cols: number, rows: number, options: MountOptions = {}) {
  const now = options.now ?? Date.now;
  const main = new XtermScreen(cols, rows);
  const source = createPaneSource(main, 0);
  const board = createBoard({
    createScreen: (c, r) => source.createScreen(c, r),
    mainHistory: () => main.history(),
    cols,
    rows,
    statusLine: options.statusLine ?? true,
    noColor: options.noColor ?? false,
    ...(options.maxLive === undefined ? {} : { maxLive: options.maxLive }),
  });
  source.attach(board);
  const out = new FrameRecorder(cols, rows);
  const stdin = Object.assign(new PassThrough(), { isTTY: false }) as unknown as NodeJS.ReadStream;
  const list = createAgentList();
  const sign = createPrefixSign();
  const prompt = options.prompt ?? createMentionPrompt();
  const ink = render(<Cockpit board={board} source={source} prefix={DEFAULT_PREFIX} prompt={prompt} list={list} prefixSign={sign} name="tai 42 sh" now={now} />, {
    stdout: out as unknown as NodeJS.WriteStream,
    stdin,
    debug: true,
    exitOnCtrlC: false,
    patchConsole: false,
  });
  const frame = (): string => out.frames.at(-1) ?? '';
  const keys = new KeyScanner(DEFAULT_PREFIX);
  const typed: string[] = [];
  let lapses: (() => void)[] = [];
  const mentions = new MentionController(prompt, {
    board,
    loadEntries: async () => options.entries ?? [],
    locate: (e) => locateAgent(e, { PATH: TEST_PATH }), // the tests' PATH, not the caller's
    cwd: process.cwd(),
    spawn: async () => ({ ok: false, error: 'no agents in this harness' }),
    changed: () => source.dirty(),
  });
  const onKeys = routeKeys({
    keys,
    board,
    mentions,
    list,
    sign,
    now,
    dispatch: (c) => dispatch(c, { board, now: now() }),
    toMain: (d) => typed.push(d),
    changed: () => source.dirty(),
    after: (_ms, fn) => {
      lapses.push(fn);
      return () => (lapses = lapses.filter((f) => f !== fn));
    },
  });
  return {
    board,
    list,
    sign,
    prompt,
    keys,
    /** Types a chunk through the real key path: as the cockpit does, the straight way first, else the listener. */
    type: (chunk: string): void => void (onKeys.straight(chunk) || onKeys(chunk)),
    /** What reached the main pane. */
    typed,
    /** Runs the prefix's lapse timer as if PREFIX_TIMEOUT_MS passed; false when none was armed. */
    lapse: (): boolean => {
      const fn = lapses.shift();
      fn?.();
      return fn !== undefined;
    },
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
