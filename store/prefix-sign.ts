/**
 * Whether the prefix key waits for its key, for the status line's sign: a
 * store of its own (the KeyScanner is pure and the board's snapshot is the
 * agents'), set by the key router after each chunk and when the prefix lapses.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';

/** The sign's state. */
export interface PrefixSignState {
  readonly pending: boolean;
  set(pending: boolean): void;
}

/** The sign's store. */
export type PrefixSign = StoreApi<PrefixSignState>;

/** Creates the sign, off. */
export function createPrefixSign(): PrefixSign {
  return createStore<PrefixSignState>()((set) => ({ pending: false, set: (pending) => set({ pending }) }));
}
