/**
 * What the status line's right end says for the keyboard: the prefix waiting, a one-key question (closing a running
 * agent's panel asks first, as tmux's kill-pane does), a key's refusal until the next key. A store of its own, so
 * the board's snapshot stays the agents'; set by the key router.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';

/** The sign's state. */
export interface PrefixSignState {
  readonly pending: boolean;
  /** A question waiting for one key (`y` confirms), or undefined. */
  readonly ask?: string;
  /** Why the last key's command was refused, until the next key; or undefined. */
  readonly message?: string;
  set(pending: boolean): void;
  asks(question: string | undefined): void;
  say(message: string | undefined): void;
}

/** The sign's store. */
export type PrefixSign = StoreApi<PrefixSignState>;

/** Creates the sign, off. */
export function createPrefixSign(): PrefixSign {
  return createStore<PrefixSignState>()((set) => ({
    pending: false,
    set: (pending) => set({ pending }),
    asks: (ask) => set({ ask }),
    say: (message) => set({ message }),
  }));
}
