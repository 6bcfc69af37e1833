/**
 * The drawn cockpit put together from its parts: the board's clock, the main
 * pane (src/io/cockpit/main/main-pane.ts), the drawing (drawing.ts), the keyboard
 * routed to the mention line, the prefix commands or the main program
 * (key-router.ts), the window's size, and the process hooks (signals, a last
 * restore before an uncaught error is printed). It ends once, when the main
 * program exits or a signal arrives: agents stopped softly then hard, the
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
import { createPrefixSign } from '../../../store/prefix-sign.js';
import type { BoardState } from '../../../store/board.js';
import { loadRegistry, locateAgent } from '../agents/spawn/agent-config.js';
import { idleCollection, quietAfter } from '../idle-collect.js';
import { cursorOf } from '../terminal/screen-rows.js';
import { echoAhead, type PreparedAhead } from '../terminal/echo-ahead.js';
import { EXPEDITE_MS } from '../terminal/pane-source.js';
import type { CursorPlace } from '../terminal/term-output.js';
import { startBoardClock } from './board-clock.js';
import type { CockpitBoard, CockpitScreens } from './cockpit-board.js';
import type { CockpitOptions, RunningCockpit } from './cockpit-types.js';
import { CopyView } from './keys/copy-view.js';
import { startDrawing } from './drawing.js';
import { routeKeys, straightLane, type KeyRoute } from './keys/key-router.js';
import { panelKeys } from './keys/panel-keys.js';
import { steerKeys } from './keys/steer-keys.js';
import { startNotifier } from './notifier.js';
import { createSteerLine } from '../../../store/steer-line.js';
import { mainRect, startMainPane } from './main/main-pane.js';
import { cockpitName, FAILS_AT_ONCE_MS, lastLines, mainArgv } from './main/main-program.js';
import { MentionController } from './keys/mentions.js';
import { endOnce, holdProcess, signalNumber } from './cockpit-end.js';
import type { CockpitTerminal } from './cockpit-terminal.js';

/** How long after a key to the main program the next key's echo is made ready after each frame. */
const TYPING_MS = 1_000;

/** Starts a cockpit that draws on `stdout`, over a board made with its screens. */
export function startDrawn(options: CockpitOptions, made: CockpitBoard & { readonly screens: CockpitScreens }, terminal: CockpitTerminal): RunningCockpit {
  const { board, screens } = made;
  const { main, source } = screens;
  const env = options.env ?? process.env;
  const now = options.now ?? Date.now;
  const log = options.log ?? (() => {});
  const prefix = options.prefix === undefined ? choosePrefix(env.TAI_PREFIX) : choosePrefix(options.prefix, 'prefix');
  // One dispatcher for both doors (docs/architecture.md, "One command type, two doors"); the socket's agents are wired in by cockpit-main.ts.
  const dispatchAny =
    options.dispatch ?? ((command: Command, c: RunningCockpit): Promise<Reply> => dispatchCommand(command, { board: c.board, now: c.now(), log }));
  // Detaching is the terminal's business, not the board's: the link detaches the client that typed it.
  const dispatch = (command: Command, c: RunningCockpit): Promise<Reply> | void => {
    if (command.cmd !== 'detach') return dispatchAny(command, c);
    const why = terminal.detach();
    if (why !== undefined) notice(why);
    return Promise.resolve({ ok: true, data: null });
  };

  const clock = startBoardClock(board, now);
  // What the user must see before anything else, in the main pane where the eye is (tmux's display-message).
  const notice = (line: string): void => screens.writeMain(`\x1b[33mtai: ${sanitizeLine(line)}\x1b[0m\r\n`);
  for (const line of options.notices ?? []) notice(line);
  /** When keys last went to the main program: its echo may then be written ahead of its frame. */
  let typedAt = -Infinity;
  /** Whether the main pane is shown at its bottom and typed into (no help over it). */
  const typedInto = (s: BoardState): boolean => s.focus === 'main' && !s.help && s.scrollback === 0;
  /**
   * The echo ahead of `data`, were the main program to print it now: text at the cursor (echo-ahead.ts), within
   * EXPEDITE_MS of a key, the main pane shown and typed into, its cursor visible. Undefined when it cannot be.
   */
  const echoOf = (data: string, within = EXPEDITE_MS): PreparedAhead | undefined => {
    if (now() - typedAt > within) return undefined;
    if (!typedInto(board.getState()) || copy.cursor() !== undefined || screens.cursorHidden()) return undefined;
    const e = echoAhead(main, data);
    if (e === undefined) return undefined;
    const r = mainRect(board);
    return e.x + e.chars.length < r.cols && e.y < r.rows ? drawing.prepareAhead(r.x + e.x, r.y + e.y, e.chars.length, e.style) : undefined;
  };
  /**
   * The echo of the next key, made ready after each frame while the user types into the main program (one
   * printable character prints the same way whichever it is): when one comes back alone, with nothing changed
   * since on the main screen, in the main pane's place or on the terminal, only a few comparisons stand between
   * its read and its write. A key that does not go straight to the main program forgets it (copy mode, the
   * prompt, the list: keys' business).
   */
  let ready: { readonly ahead: PreparedAhead; readonly changes: number; readonly layout: BoardState['layout'] } | undefined;
  const prepareEcho = (): void => {
    ready = undefined;
    const ahead = echoOf(' ', TYPING_MS);
    if (ahead !== undefined) ready = { ahead, changes: main.changes, layout: board.getState().layout };
  };
  /** Writes the echo `data` ahead of its frame, the prepared one when it still holds, when it can be; true when written. */
  const writeEcho = (data: string): boolean => {
    const r = ready;
    ready = undefined;
    if (r !== undefined && data.length === 1 && data >= ' ' && data <= '~' && r.changes === main.changes && now() - typedAt <= EXPEDITE_MS) {
      const s = board.getState();
      if (s.layout === r.layout && typedInto(s) && r.ahead.write(data)) return true;
    }
    return echoOf(data)?.write(data) ?? false;
  };
  const mainPane = startMainPane(board, screens, {
    argv: options.argv,
    env,
    ...(options.socketPath === undefined ? {} : { socketPath: options.socketPath }),
    // A typed key's echo goes to the terminal before the main screen parses it, when it is only printed text at
    // the cursor (echo-ahead.ts); the frame after the parse draws what the screen then holds.
    beforeParse: writeEcho,
  });

  const prompt = createMentionPrompt();
  const mentions = new MentionController(prompt, {
    board,
    loadEntries: options.mentions?.loadEntries ?? (async () => (await loadRegistry(undefined, env)).entries),
    locate: options.mentions?.locate ?? ((entry) => locateAgent(entry, env)),
    cwd: options.mentions?.cwd ?? process.cwd(),
    spawn: async (command) => ((await dispatch(command, cockpit)) as Reply<SpawnResult> | undefined) ?? { ok: false, error: NO_AGENTS },
    changed: () => {
      source.expedite();
      source.dirty();
    },
  });

  const copy = new CopyView({
    board,
    main,
    dispatch: (command) => void dispatch(command, cockpit),
    clipboard: (text) => drawing.clipboard(text),
    changed: () => {
      source.expedite();
      source.dirty();
    },
  });

  // The terminal's cursor stands where the main program's is, while the main pane is what the user types into.
  const cursor = (): CursorPlace => {
    const inCopy = copy.cursor();
    if (inCopy !== undefined) return inCopy; // copy mode's cursor, wherever its pane is
    const s = board.getState();
    if (s.focus !== 'main' || s.help || s.scrollback > 0 || screens.cursorHidden() || prompt.getState().line !== null || list.getState().open) return null;
    if (s.layout.zoomed && s.layout.zoomed.id !== 'main') return null;
    const r = mainRect(board);
    const c = cursorOf(main.term);
    return { x: r.x + c.x, y: r.y + c.y };
  };
  const steer = createSteerLine();
  steer.subscribe(() => source.dirty());
  const keys = new KeyScanner(prefix);
  const list = createAgentList();
  const sign = createPrefixSign();
  const name = options.name === undefined ? cockpitName(process.pid, mainArgv(options.argv, env)) : `tai ${options.name}`;
  const drawing = startDrawing({ terminal, board, source, prompt, list, prefix, name, now, prefixSign: sign, cursor, log, mouse: env.TAI_MOUSE !== '0', decorate: (o) => copy.decorate(o), steer, rendered: () => idleCollection.activity() });
  main.term.onTitleChange((title) => drawing.title(title)); // the main program's only: agents' screens are not asked
  main.term.onWriteParsed(() => drawing.anyMotion(main.term.modes.mouseTrackingMode === 'any'));
  const stopNotifier = startNotifier({ board, ring: (message) => drawing.ring(message), env, log });

  const route: KeyRoute = {
    keys,
    board,
    mentions,
    list,
    sign,
    now,
    changed: () => {
      source.expedite();
      source.dirty();
    },
    dispatch: (command) => void dispatch(command, cockpit),
    toMain: (data) => {
      mainPane.type(data);
      typedAt = now();
      source.expedite();
    },
    mainMouse: { main: () => mainPane.mouse(), send: (data) => mainPane.sendMouse(data) },
    copy,
    toPanel: panelKeys({ board, now, log, steer: steerKeys({ line: steer, send: async (id, text) => (await dispatch({ cmd: 'steer', id, text }, cockpit)) ?? { ok: false, error: NO_AGENTS } }) }),
  };
  const onKeys = routeKeys(route);
  const straight = straightLane(route);
  source.onFrame(prepareEcho); // after the drawing's own listener: made from what the frame left on the terminal
  // The idle collection (its compaction pauses the loop) waits for the keys to be quiet too.
  terminal.onInput(
    quietAfter(idleCollection, (chunk: string) => {
      if (straight(chunk)) return;
      ready = undefined;
      main.settle(); // copy mode and the rest read the main screen
      onKeys(chunk);
    }),
  );
  terminal.start();
  terminal.onResize(() => {
    const { cols, rows } = terminal;
    drawing.resize(cols, rows);
    board.getState().resize(cols, rows);
    source.dirty();
  });

  const restore = (): void => {
    stopNotifier();
    drawing.stop();
    terminal.stop();
  };

  // A main program that fails at once leaves its reason on the main screen: show it on the normal screen after.
  const startedAt = now();
  let failedAtOnce: string[] = [];
  const { end, done } = endOnce(board, now, () => {
    clock.stop();
    restore();
    release();
    terminal.epilogue(failedAtOnce);
  });
  void mainPane.pty.exited.then(async (e) => {
    if (e.code !== 0 && now() - startedAt < FAILS_AT_ONCE_MS) {
      await main.parsed(); // its last output may still wait to be parsed
      const [program] = mainArgv(options.argv, env);
      failedAtOnce = [...lastLines(main.term), `tai: ${String(program)} exited with code ${e.code} at once`];
    }
    end(e.code);
  });

  const release = holdProcess({
    signal(signal) {
      if (signal === 'SIGHUP') drawing.pause(); // the terminal is gone: nothing to draw on while agents stop
      mainPane.pty.kill('SIGHUP');
      end(128 + signalNumber(signal));
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
