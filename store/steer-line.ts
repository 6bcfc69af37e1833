/**
 * The steering line's store (docs/agents.md, "Steering"): the one-line input that
 * opens at the bottom of a focused agent panel and sends a follow-up message on Enter
 * (src/io/cockpit/keys/steer-keys.ts). Apart from the board, like the mention prompt.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';

/** Characters one steering message may hold. */
export const STEER_LINE_MAX = 4_000;

/** The line's state and actions. */
export interface SteerLineState {
  /** The panel the line is open in, or null when closed. */
  readonly panel: number | null;
  readonly text: string;
  /** A refused send: shown until the next key; the text is kept. */
  readonly error?: string;
  /** The message is being sent: keys wait. */
  readonly busy: boolean;
  open(panel: number): void;
  type(text: string): void;
  back(): void;
  fail(error: string): void;
  setBusy(busy: boolean): void;
  close(): void;
}

/** The line's store. */
export type SteerLine = StoreApi<SteerLineState>;

/** Creates a closed steering line. */
export function createSteerLine(): SteerLine {
  return createStore<SteerLineState>()((set, get) => ({
    panel: null,
    text: '',
    busy: false,
    open: (panel) => set({ panel, text: '', busy: false, error: undefined }),
    type: (text) => set({ text: (get().text + text).slice(0, STEER_LINE_MAX), error: undefined }),
    back: () => set({ text: [...get().text].slice(0, -1).join(''), error: undefined }),
    fail: (error) => set({ error, busy: false }),
    setBusy: (busy) => set({ busy }),
    close: () => set({ panel: null, text: '', busy: false, error: undefined }),
  }));
}
