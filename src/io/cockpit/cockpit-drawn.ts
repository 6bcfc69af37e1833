/**
 * The drawn cockpit put together: the board's clock, the main pane (main/main-pane.ts), the drawing, the keys
 * (keys/key-router.ts), the window's size and the process hooks (signals, a last restore before an uncaught error is
 * printed). It ends once, when the main program exits or a signal arrives: agents stopped softly then hard, the
 * terminal restored, the main program's exit code returned.
 */
import type { Command } from '../../core/protocol/commands.js';
import { KeyScanner } from '../../core/input/keys.js';
import { choosePrefix } from '../../core/input/prefix-choice.js';
import type { SpawnResult } from '../../core/agents/agent-service.js';
import { sanitizeLine } from '../../core/text/sanitize.js';
import { dispatch as dispatchCommand, NO_AGENTS, type Reply } from '../../../store/dispatch.js';
import { createMentionPrompt } from '../../../store/mention-prompt.js';
import { createAgentList } from '../../../store/agent-list.js';
import { createPrefixSign, type PrefixSign } from '../../../store/prefix-sign.js';
import type { Board } from '../../../store/board.js';
import { loadRegistry, locateAgent } from '../agents/spawn/agent-config.js';
import { idleCollection, quietAfter } from '../idle-collect.js';
import { cursorOf } from '../terminal/screen-rows.js';
import { EXPEDITE_MS } from '../terminal/pane-source.js';
import type { CursorPlace } from '../terminal/term-output.js';
import { startBoardClock } from './board-clock.js';
import type { CockpitBoard, CockpitScreens } from './cockpit-board.js';
import type { CockpitOptions, RunningCockpit } from './cockpit-types.js';
import { CopyView } from './keys/copy-view.js';
import { startDrawing, type Drawing } from './drawing/drawing.js';
import { routeKeys, type KeyRoute } from './keys/key-router.js';
import { panelKeys } from './keys/panel-keys.js';
import { steerKeys } from './keys/steer-keys.js';
import { startNotifier } from './notifier.js';
import { startCostSampler } from '../cost/cost-sampler.js';
import { createSteerLine } from '../../../store/steer-line.js';
import { mainRect, startMainPane, type MainPane } from './main/main-pane.js';
import { cockpitName, FAILS_AT_ONCE_MS, lastLines, mainArgv } from './main/main-program.js';
import { MentionController } from './keys/mentions.js';
import { endOnce, holdProcess, signalNumber } from './cockpit-end.js';
import type { CockpitTerminal } from './cockpit-terminal.js';
import { processCwd } from '../process-identity.js';
import { wireLeadWake } from '../lead/wake-wiring.js';

/** The keyboard's dispatcher: the board's commands, and detach, which is the terminal's business. */
type Dispatch = (command: Command, c: RunningCockpit) => Promise<Reply> | void;

/** Starts a cockpit that draws on `stdout`, over a board made with its screens. */
export function startDrawn(options: CockpitOptions, made: CockpitBoard & { readonly screens: CockpitScreens }, terminal: CockpitTerminal): RunningCockpit {
  const { board, screens } = made;
  const { source } = screens;
  const env = options.env ?? process.env;
  const now = options.now ?? Date.now;
  const log = options.log ?? (() => {});
  const clock = startBoardClock(board, now);
  // What the user must see before anything else, in the main pane where the eye is (tmux's display-message).
  const notice = (line: string): void => screens.writeMain(`\x1b[33mtai: ${sanitizeLine(line)}\x1b[0m\r\n`);
  for (const line of options.notices ?? []) notice(line);
  const dispatch = cockpitDispatch(options, terminal, notice, log);
  let echo: ((data: string) => boolean) | undefined;
  let say: ((line: string) => void) | undefined;
  // tai --wake: the lead's wake-up types into the main program and says so on the status line (docs/lead.md).
  const lead = wireLeadWake(options.lead, { board, env, now, log, type: (text) => mainPane.type(text), say: (line) => say?.(line) });
  const mainPane = startMainPane(board, screens, {
    argv: options.argv,
    env,
    ...(options.socketPath === undefined ? {} : { socketPath: options.socketPath }),
    beforeParse: (data) => {
      const ahead = echo?.(data) ?? false; // first: the echo is written before any bookkeeping
      lead.noteOutput();
      return ahead;
    },
    onKeysDropped: (line) => {
      log(`main pane: ${line}`);
      notice(line);
    },
  });
  let typedAt = -Infinity;
  const typed = (): void => {
    lead.noteKeys();
    typedAt = now();
  };
  const parts = startParts({ options, board, screens, terminal, mainPane, env, now, log, dispatch: (command) => dispatch(command, cockpit), typed });
  const { drawing } = parts;
  say = (line) => parts.sign.getState().say(line);
  echo = echoAhead(board, screens, parts, () => now() - typedAt <= EXPEDITE_MS);
  terminal.start();
  terminal.onResize(() => {
    const { cols, rows } = terminal;
    drawing.resize(cols, rows);
    board.getState().resize(cols, rows);
    source.dirty();
  });
  const stopClocks = { stop: () => (lead.stop(), clock.stop()) };
  const { end, done } = startEnding({ options, board, screens, terminal, mainPane, drawing, env, now, clock: stopClocks, stopNotifier: parts.stopNotifier });
  const cockpit: RunningCockpit = {
    board,
    drawingOff: null,
    now,
    done,
    stats: drawing.stats,
    notice,
    stop: (code) => {
      mainPane.pty.kill('SIGHUP');
      end(code);
    },
  };
  source.dirty();
  return cockpit;
}

/** One dispatcher for both doors (the keyboard and the socket, whose agents cockpit-main.ts wires in). */
function cockpitDispatch(options: CockpitOptions, terminal: CockpitTerminal, notice: (line: string) => void, log: (line: string) => void): Dispatch {
  const dispatchAny =
    options.dispatch ?? ((command: Command, c: RunningCockpit): Promise<Reply> => dispatchCommand(command, { board: c.board, now: c.now(), log }));
  // Detaching is the terminal's business, not the board's: the link detaches the client that typed it.
  return (command, c) => {
    if (command.cmd !== 'detach') return dispatchAny(command, c);
    const why = terminal.detach();
    if (why !== undefined) notice(why);
    return Promise.resolve({ ok: true, data: null });
  };
}

/** What the parts of a drawn cockpit are made from. */
interface PartsInput {
  readonly options: CockpitOptions;
  readonly board: Board;
  readonly screens: CockpitScreens;
  readonly terminal: CockpitTerminal;
  readonly mainPane: MainPane;
  readonly env: NodeJS.ProcessEnv;
  readonly now: () => number;
  readonly log: (line: string) => void;
  readonly dispatch: (command: Command) => Promise<Reply> | void;
  /** Keys went to the main program. */
  readonly typed: () => void;
}

/** The mention prompt, copy mode, the drawing and the keyboard's routes, wired to each other. */
function startParts(input: PartsInput): { readonly drawing: Drawing; readonly copy: CopyView; readonly sign: PrefixSign; readonly stopNotifier: () => void } {
  const { options, board, screens, terminal, mainPane, env, now, log, dispatch } = input;
  const { main, source } = screens;
  const changed = (): void => {
    source.expedite();
    source.dirty();
  };
  const prompt = createMentionPrompt();
  const mentions = new MentionController(prompt, {
    board,
    loadEntries: options.mentions?.loadEntries ?? (async () => (await loadRegistry(undefined, env)).entries),
    locate: options.mentions?.locate ?? ((entry) => locateAgent(entry, env)),
    // Where the main program is now (the shell's `cd`), as an agent started from it would be: read at each mention.
    get cwd() {
      return options.mentions?.cwd ?? processCwd(mainPane.pty.pid) ?? process.cwd();
    },
    spawn: async (command) => ((await dispatch(command)) as Reply<SpawnResult> | undefined) ?? { ok: false, error: NO_AGENTS },
    changed,
  });
  const copy = new CopyView({ board, main, dispatch: (command) => void dispatch(command), clipboard: (text) => drawing.clipboard(text), changed });
  const steer = createSteerLine();
  steer.subscribe(() => source.dirty());
  const prefix = options.prefix === undefined ? choosePrefix(env.TAI_PREFIX) : choosePrefix(options.prefix, 'prefix');
  const list = createAgentList();
  const sign = createPrefixSign();
  const name = options.name === undefined ? cockpitName(process.pid, mainArgv(options.argv, env)) : `tai ${options.name}`;
  const cursor = cursorPlace(board, screens, copy, () => prompt.getState().line !== null || list.getState().open);
  const drawing = startDrawing({ terminal, board, source, prompt, list, prefix, name, now, prefixSign: sign, cursor, log, mouse: env.TAI_MOUSE !== '0', decorate: (o) => copy.decorate(o), steer, rendered: () => idleCollection.rendered() });
  main.term.onTitleChange((title) => drawing.title(title)); // the main program's only: agents' screens are not asked
  main.term.onWriteParsed(() => drawing.anyMotion(main.term.modes.mouseTrackingMode === 'any'));
  const stopRings = startNotifier({ board, ring: (message) => drawing.ring(message), env, log });
  const cost = startCostSampler({ board, list, pgidOf: options.pgidOf ?? (() => undefined) });
  // The cockpit's own figure is taken in a frame's turn: a cockpit at rest draws nothing and wakes for nothing.
  source.onFrame(() => cost.poke());
  const stopNotifier = (): void => (stopRings(), cost.stop());
  const route: KeyRoute = {
    keys: new KeyScanner(prefix),
    board,
    mentions,
    list,
    sign,
    now,
    changed,
    dispatch: (command) => dispatch(command),
    toMain: (data) => {
      mainPane.type(data);
      input.typed();
      source.expedite();
    },
    mainMouse: { main: () => mainPane.mouse(), send: (data) => mainPane.sendMouse(data) },
    copy,
    toPanel: panelKeys({ board, now, log, steer: steerKeys({ line: steer, send: async (id, text) => (await dispatch({ cmd: 'steer', id, text })) ?? { ok: false, error: NO_AGENTS } }) }),
  };
  const onKeys = routeKeys(route);
  // The idle collection (its compaction pauses the loop) waits for the keys to be quiet too.
  terminal.onInput(
    quietAfter(idleCollection, (chunk: string) => {
      if (!onKeys.straight(chunk)) onKeys(chunk); // a plain key for the main pane goes straight to the pty
    }),
  );
  return { drawing, copy, sign, stopNotifier };
}

/**
 * The echo ahead (docs/performance.md, "Echo ahead"): the main program's output written on the terminal before the
 * screen parses it, when it is only text at the cursor just after a key, the main pane at its bottom and typed into.
 * The frame after the parse draws what the screen holds, over a wrong guess too.
 */
function echoAhead(board: Board, screens: CockpitScreens, parts: { readonly drawing: Drawing; readonly copy: CopyView }, typed: () => boolean): (data: string) => boolean {
  return (data) => {
    if (!typed()) return false;
    const s = board.getState();
    if (s.focus !== 'main' || s.help || s.scrollback !== 0 || parts.copy.cursor() !== undefined || screens.cursorHidden()) return false;
    const e = screens.main.echoOf(data);
    if (e === undefined) return false;
    const r = mainRect(board);
    return e.x + e.chars.length < r.cols && e.y < r.rows && parts.drawing.ahead(r.x + e.x, r.y + e.y, e.chars, e.style);
  };
}

/** Where the terminal's cursor stands: where the main program's is, while the main pane is what the user types into. */
function cursorPlace(board: Board, screens: CockpitScreens, copy: CopyView, covered: () => boolean): () => CursorPlace {
  return () => {
    const inCopy = copy.cursor();
    if (inCopy !== undefined) return inCopy; // copy mode's cursor, wherever its pane is
    const s = board.getState();
    if (s.focus !== 'main' || s.help || s.scrollback > 0 || screens.cursorHidden() || covered()) return null;
    if (s.layout.zoomed && s.layout.zoomed.id !== 'main') return null;
    const r = mainRect(board);
    const c = cursorOf(screens.main.term);
    return { x: r.x + c.x, y: r.y + c.y };
  };
}

/** What the cockpit's end is wired from. */
interface EndingInput {
  readonly options: CockpitOptions;
  readonly board: Board;
  readonly screens: CockpitScreens;
  readonly terminal: CockpitTerminal;
  readonly mainPane: MainPane;
  readonly drawing: Drawing;
  readonly env: NodeJS.ProcessEnv;
  readonly now: () => number;
  readonly clock: { stop(): void };
  readonly stopNotifier: () => void;
}

/**
 * The cockpit's one end: when the main program exits, a signal arrives or
 * an uncaught error is about to be printed (the terminal restored first).
 */
function startEnding(input: EndingInput): ReturnType<typeof endOnce> {
  const { options, board, screens, terminal, mainPane, drawing, env, now } = input;
  const restore = (): void => {
    input.stopNotifier();
    drawing.stop();
    terminal.stop();
  };
  // A main program that fails at once leaves its reason on the main screen: show it on the normal screen after.
  const startedAt = now();
  let failedAtOnce: string[] = [];
  const ending = endOnce(board, now, () => {
    input.clock.stop();
    restore();
    release();
    terminal.epilogue(failedAtOnce);
  });
  void mainPane.pty.exited.then(async (e) => {
    if (e.code !== 0 && now() - startedAt < FAILS_AT_ONCE_MS) {
      await screens.main.parsed(); // its last output may still wait to be parsed
      const [program] = mainArgv(options.argv, env);
      failedAtOnce = [...lastLines(screens.main.term), `tai: ${String(program)} exited with code ${e.code} at once`];
    }
    ending.end(e.code);
  });
  const release = holdProcess({
    signal(signal) {
      if (signal === 'SIGHUP') drawing.pause(); // the terminal is gone: nothing to draw on while agents stop
      mainPane.pty.kill('SIGHUP');
      ending.end(128 + signalNumber(signal));
    },
    fatal(err) {
      restore();
      process.stderr.write(`tai: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      try {
        board.getState().shutdown('tai crashed', now());
      } catch {
        // Best effort: the agents' own parent-death handling stops them otherwise.
      }
      mainPane.pty.kill('SIGHUP');
      process.exit(1);
    },
  });
  return ending;
}
