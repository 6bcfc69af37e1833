/**
 * How a cockpit ends: once, however many exits and signals race for it;
 * its agents stopped softly, then hard; the signals that end it and the last
 * restore before an uncaught error is printed, held while it runs and given
 * back after (tests start several cockpits in one process).
 */
import { isLive } from '../../core/panel/panel-state.js';
import { ORCH_CANCEL_GRACE } from '../../core/policy.js';
import type { Board } from '../../../store/board.js';
import { COCKPIT_EXITING } from '../../core/restore/restore-plan.js';

/** Stops every live agent softly, then waits for them (the board's tick escalates to hard after the grace). */
export async function stopAgents(board: Board, now: () => number): Promise<void> {
  board.getState().shutdown(COCKPIT_EXITING, now());
  const deadline = now() + ORCH_CANCEL_GRACE + 2_000;
  const live = (): boolean => board.getState().status(now()).agents.some((a) => isLive(a.state));
  while (live() && now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    board.getState().tick(now());
  }
}

/** How a cockpit ends: `end(code)` once, however many exits and signals race for it. */
export interface Ending {
  end(code: number): void;
  /** Resolves with the code once the agents are stopped and `cleanup` ran. */
  readonly done: Promise<number>;
}

/** Ends a cockpit once: stops its agents (soft, then hard), runs `cleanup`, then resolves `done`. */
export function endOnce(board: Board, now: () => number, cleanup: () => void): Ending {
  let resolveDone: (code: number) => void = () => {};
  const done = new Promise<number>((r) => (resolveDone = r));
  let ending = false;
  return {
    done,
    end(code) {
      if (ending) return;
      ending = true;
      void stopAgents(board, now).then(() => {
        cleanup();
        resolveDone(code);
      });
    },
  };
}

/** The number of a signal, for the `128 + n` exit code. */
export function signalNumber(signal: NodeJS.Signals): number {
  const table: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15, SIGKILL: 9 };
  return table[signal] ?? 1;
}

/** What the cockpit does on a signal, and on an uncaught error (omitted: Node's default). */
export interface ProcessHandlers {
  signal(signal: NodeJS.Signals): void;
  fatal?(err: unknown): void;
}

/** The signals that end a cockpit. */
export const ENDING_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** Installs the handlers; returns the function that removes them. */
export function holdProcess(handlers: ProcessHandlers): () => void {
  const onSignal = (signal: NodeJS.Signals): void => handlers.signal(signal);
  for (const s of ENDING_SIGNALS) process.on(s, onSignal);
  const fatal = handlers.fatal;
  if (fatal !== undefined) {
    process.on('uncaughtException', fatal);
    process.on('unhandledRejection', fatal);
  }
  return () => {
    for (const s of ENDING_SIGNALS) process.off(s, onSignal);
    if (fatal !== undefined) {
      process.off('uncaughtException', fatal);
      process.off('unhandledRejection', fatal);
    }
  };
}
