/**
 * What the status line's right end says for the keyboard: whether the prefix
 * waits for its key, a question that waits for one key (closing a running
 * agent's panel asks first, as tmux's kill-pane does), and a key's refusal
 * (tmux's display-message), shown until the next key. A store of its own
 * (the KeyScanner is pure and the board's snapshot is the agents'), set by
 * the key router.
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
