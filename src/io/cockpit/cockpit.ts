/**
 * The folder `src/io/cockpit/`: the full-screen application put together (the board's clock, the drawing, the
 * notifier, the end), the main program in `main/`, the keys in `keys/`. This file chooses drawn or undrawn: with
 * TAI_ORCH_PANELS=0 or no terminal the main program inherits the terminal and supervision is unchanged. The board may be
 * made beforehand (`createCockpitBoard`) so the socket and the agents hold it before the main program starts.
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
