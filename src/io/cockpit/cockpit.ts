/**
 * The folder `src/io/cockpit/`: the full-screen application put together:
 * the board's clock, the drawing, the notifier and the end of a cockpit,
 * with the main program in `main/` and the keys (the mention line, copy
 * mode, questions, steering) in `keys/`; this file chooses drawn or undrawn.
 *
 * A cockpit runs the main program (in a pty drawn from a headless terminal,
 * or on the terminal itself when nothing is drawn) over a board that may be
 * made beforehand (`createCockpitBoard`), so that the socket and the agents
 * can hold the board before the main program starts. When the main program
 * exits every agent is stopped softly (hard after the grace), the terminal is
 * restored and the main program's exit code is returned.
 *
 * With TAI_ORCH_PANELS=0 or a stdout that is not a terminal nothing is drawn:
 * the main program inherits the terminal and supervision is unchanged.
 */
import { createCockpitBoard } from './cockpit-board.js';
import { startDrawn } from './cockpit-drawn.js';
import { processTerminal } from './cockpit-terminal.js';
import type { CockpitOptions, RunningCockpit } from './cockpit-types.js';
import { startUndrawn } from './cockpit-undrawn.js';
import { checkMainProgram } from './main/main-program.js';

/** Starts the cockpit over `options.board`, or over a board made here for this terminal; throws a MainProgramError when the main program cannot be started. */
export function startCockpit(options: CockpitOptions): RunningCockpit {
  checkMainProgram(options.argv, options.env ?? process.env);
  const stdout = options.stdout ?? process.stdout;
  const terminal = options.terminal ?? processTerminal(options.stdin ?? process.stdin, stdout);
  const made =
    options.board ??
    createCockpitBoard({
      ...(options.terminal === undefined ? { stdout } : { size: options.terminal }),
      ...(options.env === undefined ? {} : { env: options.env }),
      ...(options.now === undefined ? {} : { now: options.now }),
      ...(options.log === undefined ? {} : { log: options.log }),
    });
  const { screens } = made;
  if (screens === null) return startUndrawn(options, made);
  const cockpit = startDrawn(options, { ...made, screens }, terminal);
  // Nobody attached sees the headers' seconds: the board ticks for supervision alone until a client comes back.
  const board = made.board.getState();
  board.seenBy(() => terminal.watched());
  terminal.onAttach(() => board.seenAgain(cockpit.now()));
  return cockpit;
}
