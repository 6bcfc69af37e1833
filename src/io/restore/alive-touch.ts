/**
 * A cockpit's last sign of life (docs/restore.md, "What is stored"), what a restore counts as its live agents'
 * spent wall clock; so it is written only while an agent runs: at the first start, at most every ALIVE_EVERY_MS
 * in the board's own tick (no timer of its own wakes the process), and at the last end.
 */
import { isLive } from '../../core/panel/panel-state.js';
import type { Board, PanelView } from '../../../store/board.js';

/** How often a cockpit's last sign of life is written while an agent runs: the most wall clock a crash can take from its agents. */
export const ALIVE_EVERY_MS = 5_000;

/** A tick this close before the write's due time writes: ticks fall on a grid of whole seconds, a hair early or late. */
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
  let unsubscribe: (() => void) | undefined;
  const write = (at: number): void => {
    last = at;
    touch(at);
  };
  // The board's clock ticks every second while an agent is live: the write rides that wake-up, never a timer's.
  const ticked = (at: number): void => {
    if (live && at - last >= ALIVE_EVERY_MS - EARLY_MS) write(at);
  };
  const changed = (panels: readonly PanelView[]): void => {
    const was = live;
    live = anyAgentLive(panels);
    if (live && !was && now() - last >= ALIVE_EVERY_MS - EARLY_MS) write(now());
    else if (!live && was) write(now()); // the last moment an agent ran
  };
  return {
    follow(board) {
      unsubscribe?.();
      const offPanels = board.subscribe((state, before) => {
        if (state.panels !== before.panels) changed(state.panels);
      });
      const offTick = board.getState().onTick(ticked);
      unsubscribe = () => {
        offPanels();
        offTick();
      };
      changed(board.getState().panels);
    },
    stop() {
      unsubscribe?.();
      unsubscribe = undefined;
    },
  };
}
