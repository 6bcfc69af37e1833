/**
 * The cockpit when nothing is drawn (TAI_ORCH_PANELS=0, or stdout is not a
 * terminal): the main program inherits the terminal, the board supervises
 * hidden panels exactly as shown ones, and the exit is the same.
 */
import { spawn } from 'node:child_process';
import { sanitizeLine } from '../../core/text/sanitize.js';
import { startBoardClock } from './board-clock.js';
import type { CockpitBoard } from './cockpit-board.js';
import type { CockpitOptions, RunningCockpit } from './cockpit-types.js';
import { mainEnv } from './main/pty.js';
import { endOnce, holdProcess, signalNumber } from './cockpit-end.js';
import { startPushesOnly } from './notifier.js';

/** Starts the main program on the terminal with a board that draws nothing. */
export function startUndrawn(options: CockpitOptions, made: CockpitBoard): RunningCockpit {
  const env = options.env ?? process.env;
  const now = options.now ?? Date.now;
  const { board } = made;
  const reason = made.drawingOff ?? 'nothing is drawn';
  const clock = startBoardClock(board, now);
  const notice = (line: string): void => void process.stderr.write(`tai: ${sanitizeLine(line)}\n`);
  for (const line of options.notices ?? []) notice(line);
  const [file, ...args] = options.argv.length > 0 ? options.argv : [env.SHELL || '/bin/sh'];
  const child = spawn(file, args, { stdio: 'inherit', env: mainEnv(env, options.socketPath) });
  const stopPushes = startPushesOnly(board, env, options.log); // the webhook's, with no terminal to ring
  const { end, done } = endOnce(board, now, () => (clock.stop(), stopPushes()));
  // The terminal's Ctrl-C reaches the child too (same process group): it decides; other signals are forwarded.
  const release = holdProcess({
    signal(signal) {
      if (signal !== 'SIGINT') child.kill(signal);
    },
  });
  child.on('exit', (code, signal) => {
    release();
    end(signal ? 128 + signalNumber(signal) : (code ?? 1));
  });
  child.on('error', () => end(127));
  const cockpit: RunningCockpit = {
    board,
    drawingOff: reason,
    now,
    done,
    stats: { frames: 0, aheads: 0, writes: 0, bytes: 0 },
    notice,
    stop: (code) => {
      child.kill('SIGHUP');
      end(code);
    },
  };
  return cockpit;
}

