/**
 * The agent list's store (prefix + w, like tmux's choose-tree): whether the
 * list of every agent of this cockpit (running, hidden or finished, from the
 * board's status) is open over the window, the selected row, and a note
 * shown until the next key (why a row cannot be opened). Apart from the
 * board, like the mention prompt's, so the board's snapshot stays the agents'.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { ListMove } from '../src/core/input/list-keys.js';

/** The list's state and actions. */
export interface AgentListState {
  readonly open: boolean;
  /** The selected row's agent id (kept by id, so a row arriving above it does not move the selection). */
  readonly selected: number | undefined;
  readonly note: string | undefined;
  /** Opens the list on the agent `at` (the focused panel, or the newest). */
  show(at: number | undefined): void;
  /** Moves the selection among `ids` (the rows in order). */
  move(move: Extract<ListMove, 'up' | 'down' | 'first' | 'last'>, ids: readonly number[]): void;
  fail(note: string): void;
  close(): void;
}

/** The list's store. */
export type AgentList = StoreApi<AgentListState>;

/** Creates a closed list. */
export function createAgentList(): AgentList {
  return createStore<AgentListState>()((set, get) => ({
    open: false,
    selected: undefined,
    note: undefined,
    show: (at) => set({ open: true, selected: at, note: undefined }),
    move(move, ids) {
      if (ids.length === 0) return;
      const at = selectedIndex(get().selected, ids);
      const to = move === 'first' ? 0 : move === 'last' ? ids.length - 1 : move === 'up' ? Math.max(0, at - 1) : Math.min(ids.length - 1, at + 1);
      set({ selected: ids[to], note: undefined });
    },
    fail: (note) => set({ note }),
    close: () => set({ open: false, note: undefined }),
  }));
}

/** The selected row's index among `ids`: the selected agent, else the last row. */
export function selectedIndex(selected: number | undefined, ids: readonly number[]): number {
  const at = selected === undefined ? -1 : ids.indexOf(selected);
  return at >= 0 ? at : ids.length - 1;
}
