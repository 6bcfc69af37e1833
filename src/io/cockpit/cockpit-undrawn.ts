/**
 * The cockpit when nothing is drawn (TAI_ORCH_PANELS=0, or stdout is not a
 * terminal): the main program inherits the terminal, the board supervises
 * hidden panels exactly as shown ones, and the exit is the same.
 */
import { spawn } from 'node:child_process';
import { createBoard } from '../../../store/board.js';
import { startBoardClock } from './board-clock.js';
import type { CockpitOptions, RunningCockpit } from './cockpit-types.js';
import { mainEnv } from './pty.js';
import { endOnce, signalNumber } from './stop-agents.js';

/** Starts the main program on the terminal with a board that draws nothing. */
export function startUndrawn(options: CockpitOptions, reason: string): RunningCockpit {
  const env = options.env ?? process.env;
  const now = options.now ?? Date.now;
  const board = createBoard({ drawingOff: reason, ...(options.log ? { log: options.log } : {}) });
  const clock = startBoardClock(board, now);
  const [file, ...args] = options.argv.length > 0 ? options.argv : [env.SHELL || '/bin/sh'];
  const child = spawn(file, args, { stdio: 'inherit', env: mainEnv(env, options.socketPath) });
  const { end, done } = endOnce(board, now, () => clock.stop());
  // The terminal's Ctrl-C reaches the child too (same process group): it decides; other signals are forwarded.
  const onSignal = (signal: NodeJS.Signals): void => {
    if (signal !== 'SIGINT') child.kill(signal);
  };
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const s of signals) process.on(s, onSignal);
  child.on('exit', (code, signal) => {
    for (const s of signals) process.off(s, onSignal);
    end(signal ? 128 + signalNumber(signal) : (code ?? 1));
  });
  child.on('error', () => end(127));
  const cockpit: RunningCockpit = {
    board,
    drawingOff: reason,
    now,
    done,
    stats: { frames: 0, writes: 0, bytes: 0 },
    stop: (code) => {
      child.kill('SIGHUP');
      end(code);
    },
  };
  return cockpit;
}

