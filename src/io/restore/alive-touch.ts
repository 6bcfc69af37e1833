/**
 * A cockpit's last sign of life on its record (docs/restore.md, "What is
 * stored"): what a restore counts as the wall clock its live agents spent.
 * It matters only while an agent runs, so it is written only then: at most
 * every ALIVE_EVERY_MS, in the turn of the board's own change (each second's
 * elapsed time in the headers), on a timer only when the board stays still
 * that long (a held agent, an hour-long one whose header moves each minute),
 * and once when the last agent ends. A cockpit without agents writes nothing
 * until its end. Whether it crashed is its process's business (cockpit-claim.ts).
 */
import { isLive } from '../../core/panel/panel-state.js';
import type { Board, PanelView } from '../../../store/board.js';

/** How often a cockpit's last sign of life is written while an agent runs: the most wall clock a crash can take from its agents. */
export const ALIVE_EVERY_MS = 5_000;

/** A board's change this close before the write's due time writes: the board's second comes a hair before it. */
const EARLY_MS = 250;

/** The writes of the last sign of life while a board is followed. */
export interface AliveTouch {
  /** Follows `board`'s agents (once; a second board replaces the first). */
  follow(board: Board): void;
  stop(): void;
}

const anyAgentLive = (panels: readonly PanelView[]): boolean => panels.some((p) => p.kind === 'agent' && isLive(p.state));

/** Writes with `touch(now)` while the followed board has a live agent. */
export function aliveTouch(touch: (now: number) => void, now: () => number): AliveTouch {
  let last = -Infinity;
  let live = false;
  let timer: NodeJS.Timeout | undefined;
  let unsubscribe: (() => void) | undefined;
  const write = (): void => {
    clearTimeout(timer);
    timer = undefined;
    last = now();
    touch(last);
  };
  // The fallback for a board that stays still: due just after a board's change would have written.
  const arm = (): void => {
    if (timer !== undefined) return;
    timer = setTimeout(
      () => {
        timer = undefined;
        if (!live) return;
        write();
        arm();
      },
      Math.max(0, last + ALIVE_EVERY_MS + EARLY_MS - now()),
    );
    timer.unref();
  };
  const changed = (panels: readonly PanelView[]): void => {
    const was = live;
    live = anyAgentLive(panels);
    if (live && now() - last >= ALIVE_EVERY_MS - EARLY_MS) write();
    else if (!live && was) write(); // the last moment an agent ran
    if (live) arm();
  };
  return {
    follow(board) {
      unsubscribe?.();
      unsubscribe = board.subscribe((state, before) => {
        if (state.panels !== before.panels) changed(state.panels);
      });
      changed(board.getState().panels);
    },
    stop() {
      unsubscribe?.();
      unsubscribe = undefined;
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
