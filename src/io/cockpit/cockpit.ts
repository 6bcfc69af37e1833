/**
 * The folder `src/io/cockpit/`: the full-screen application put together:
 * the main pty, the board's clock, the keyboard, the mention line, the demo's
 * agents and the end of a cockpit; this file chooses drawn or undrawn.
 *
 * The cockpit's wiring: the outer terminal (alternate screen, raw stdin,
 * resize, signals), the main program in a pty drawn from a headless
 * terminal, the board and its clock, Ink rendering the components into the
 * differential output stage, and the keyboard's commands. When the main
 * program exits, every agent is stopped softly (hard after the grace), the
 * terminal is restored and the main program's exit code is returned.
 *
 * The prefix and `@` open the mention prompt (src/io/cockpit/mentions.ts): while it
 * is open every key goes to it and the bottom row is its.
 *
 * With TAI_ORCH_PANELS=0 or a stdout that is not a terminal nothing is drawn:
 * the main program inherits the terminal and supervision is unchanged.
 */
import { PassThrough } from 'node:stream';
import React from 'react';
import { render, type Instance } from 'ink';
import { Cockpit } from '../../../components/Cockpit.js';
import type { Command } from '../../core/protocol/commands.js';
import { messageOf } from '../../core/errors.js';
import { DEFAULT_PREFIX, KeyScanner, parsePrefix } from '../../core/input/keys.js';
import { rectOf } from '../../core/panel/layout.js';
import { toPane } from '../../core/input/pane-input.js';
import { createBoard } from '../../../store/board.js';
import type { CockpitOptions, RunningCockpit } from './cockpit-types.js';
import { startBoardClock } from './board-clock.js';
import { createPaneSource, FRAME_MS } from '../terminal/pane-source.js';
import { startUndrawn } from './cockpit-undrawn.js';
import { fdOf, InkStdout } from '../terminal/ink-stdout.js';
import { dispatch as dispatchCommand, NO_AGENTS, type Reply } from '../../../store/dispatch.js';
import { createMentionPrompt } from '../../../store/mention-prompt.js';
import type { SpawnResult } from '../../core/agents/agent-service.js';
import { loadRegistry, locateAgent } from '../agents/agent-config.js';
import { routeKeys } from './key-router.js';
import { MentionController } from './mentions.js';
import { spawnMain, type MainPty } from './pty.js';
import { cursorOf, trackCursorVisibility } from '../terminal/screen-rows.js';
import { MAIN_SCROLLBACK, XtermScreen } from '../terminal/screen.js';
import { endOnce, signalNumber } from './stop-agents.js';
import { ENTER, LEAVE, writeNow } from '../terminal/terminal-modes.js';
import { TermOutput, type CursorPlace, type Overlay } from '../terminal/term-output.js';

/** Unparsed main-pane output above which the main pane counts as flooded. */
export const FLOOD_BYTES = 256 * 1024;

/** The time between frames while the main pane is flooded. */
export const FLOOD_FRAME_MS = 200;

/** Why nothing is drawn, or null when the cockpit draws. */
export function drawingOffReason(env: NodeJS.ProcessEnv, stdout: NodeJS.WriteStream): string | null {
  if (env.TAI_ORCH_PANELS === '0') return 'panels are switched off (TAI_ORCH_PANELS=0)';
  if (!stdout.isTTY) return 'stdout is not a terminal';
  return null;
}

/** Starts the cockpit. */
export function startCockpit(options: CockpitOptions): RunningCockpit {
  const env = options.env ?? process.env;
  const stdout = options.stdout ?? process.stdout;
  const off = drawingOffReason(env, stdout);
  return off === null ? startDrawn(options, stdout) : startUndrawn(options, off);
}

function startDrawn(options: CockpitOptions, stdout: NodeJS.WriteStream): RunningCockpit {
  const env = options.env ?? process.env;
  const stdin = options.stdin ?? process.stdin;
  const now = options.now ?? Date.now;
  const log = options.log ?? (() => {});
  const prefix = options.prefix ?? parsePrefix(env.TAI_PREFIX ?? '') ?? DEFAULT_PREFIX;
  // One dispatcher for both doors (STYLE.md, habit 4); the socket's agents are wired in by cockpit-main.ts.
  const dispatch =
    options.dispatch ?? ((command: Command, c: RunningCockpit): Promise<Reply> => dispatchCommand(command, { board: c.board, now: c.now(), log }));
  const size = (): { cols: number; rows: number } => ({ cols: stdout.columns || 80, rows: stdout.rows || 24 });

  const { cols, rows } = size();
  const main = new XtermScreen(cols, rows, MAIN_SCROLLBACK);
  const cursorVisibility = trackCursorVisibility(main.term);
  // While the main pane's output waits to be parsed (`seq 1 2000000`), frames compete with parsing: draw less often.
  let backlog = 0;
  const source = createPaneSource(main, () => (backlog > FLOOD_BYTES ? FLOOD_FRAME_MS : FRAME_MS), now, false);
  const board = createBoard({ createScreen: (c, r) => source.createScreen(c, r), cols, rows, log });
  source.attach(board);
  const clock = startBoardClock(board, now);

  const mainRect = () => {
    const s = board.getState();
    return s.layout.zoomed?.id === 'main' ? s.layout.zoomed.rect : (rectOf(s.layout, 'main') ?? s.layout.main);
  };
  const r0 = mainRect();
  main.resize(r0.cols, r0.rows);
  const pty: MainPty = spawnMain({
    argv: options.argv,
    cols: r0.cols,
    rows: r0.rows,
    env,
    ...(options.socketPath === undefined ? {} : { socketPath: options.socketPath }),
  });
  pty.onData((data) => {
    backlog += data.length;
    main.term.write(data, () => (backlog -= data.length));
  });
  main.term.onData((reply) => pty.write(reply));

  // The main screen and the pty follow the main pane's rectangle.
  board.subscribe(() => {
    const r = mainRect();
    if (r.cols !== main.term.cols || r.rows !== main.term.rows) {
      main.resize(r.cols, r.rows);
      pty.resize(r.cols, r.rows);
    }
  });

  const cursor = (): CursorPlace => {
    const s = board.getState();
    if (s.focus !== 'main' || s.help || s.scrollback > 0 || cursorVisibility.hidden() || prompt.getState().line !== null) return null;
    if (s.layout.zoomed && s.layout.zoomed.id !== 'main') return null;
    const r = mainRect();
    const c = cursorOf(main.term);
    return { x: r.x + c.x, y: r.y + c.y };
  };

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

  const out = new TermOutput((data) => stdout.write(data), cols, rows);
  let drawing = true;
  const inkOut = new InkStdout(cols, rows, (frame) => {
    if (drawing) out.setChrome(frame);
  });
  source.onFrame(() => {
    if (!drawing) return;
    try {
      const overlays = source.overlays();
      out.draw(prompt.getState().line === null ? overlays : above(overlays, board.getState().rows - 1), cursor());
    } catch (err) {
      log(`drawing failed: ${messageOf(err)}`);
    }
  });
  const inkIn = Object.assign(new PassThrough(), { isTTY: false }) as unknown as NodeJS.ReadStream;

  stdout.write(ENTER);
  const instance: Instance = render(React.createElement(Cockpit, { board, source, prefix, prompt }), {
    stdout: inkOut as unknown as NodeJS.WriteStream,
    stdin: inkIn,
    debug: true, // every commit is written at once to our output stage, which diffs it; the cue throttles React
    exitOnCtrlC: false,
    patchConsole: false,
  });

  const onKeys = routeKeys({
    keys: new KeyScanner(prefix),
    board,
    mentions,
    dispatch: (command) => void dispatch(command, cockpit),
    toMain: (data) => {
      source.expedite();
      const modes = main.term.modes;
      pty.write(toPane(data, { applicationCursorKeys: modes.applicationCursorKeysMode, bracketedPaste: modes.bracketedPasteMode }));
    },
  });
  if (stdin.isTTY) stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  stdin.on('data', onKeys);
  stdin.resume();

  const onResize = (): void => {
    const s = size();
    out.resize(s.cols, s.rows);
    inkOut.resize(s.cols, s.rows);
    board.getState().resize(s.cols, s.rows);
    source.dirty();
  };
  stdout.on('resize', onResize);

  let restored = false;
  const restore = (): void => {
    if (restored) return;
    restored = true;
    drawing = false;
    source.stop();
    try {
      instance.unmount();
    } catch {
      // Unmounting a broken tree must not keep the terminal in the alternate screen.
    }
    stdin.off('data', onKeys);
    if (stdin.isTTY) stdin.setRawMode(false);
    stdin.pause();
    stdout.off('resize', onResize);
    writeNow(fdOf(stdout), LEAVE);
  };

  const { end, done } = endOnce(board, now, () => {
    clock.stop();
    restore();
    detachProcessHooks();
  });
  void pty.exited.then((e) => end(e.code));

  const onSignal = (signal: NodeJS.Signals): void => {
    if (signal === 'SIGHUP') drawing = false; // the terminal is gone: nothing to draw on while agents stop
    pty.kill('SIGHUP');
    end(128 + signalNumber(signal));
  };
  // A terminal that went away fails writes: stop drawing, supervision goes on (STYLE.md habit 12).
  stdout.on('error', (err) => {
    drawing = false;
    log(`terminal write failed: ${err.message}`);
  });
  const onFatal = (err: unknown): void => {
    restore();
    process.stderr.write(`tai: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    try {
      board.getState().shutdown('tai crashed', now());
    } catch {
      // Best effort: the agents' own parent-death handling stops them otherwise.
    }
    pty.kill('SIGHUP');
    process.exit(1);
  };
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const s of signals) process.on(s, onSignal);
  process.on('uncaughtException', onFatal);
  process.on('unhandledRejection', onFatal);
  const detachProcessHooks = (): void => {
    for (const s of signals) process.off(s, onSignal);
    process.off('uncaughtException', onFatal);
    process.off('unhandledRejection', onFatal);
  };

  const cockpit: RunningCockpit = {
    board,
    drawingOff: null,
    now,
    done,
    stats: out.stats,
    stop: (code) => {
      pty.kill('SIGHUP');
      end(code);
    },
  };
  source.dirty();
  return cockpit;
}

/** The overlays cut above row `y` (the mention prompt's row is chrome while it is open). */
function above(overlays: readonly Overlay[], y: number): Overlay[] {
  return overlays.flatMap((o) => (o.y >= y ? [] : o.y + o.rows.length <= y ? [o] : [{ ...o, rows: o.rows.slice(0, y - o.y) }]));
}
