/**
 * The mention prompt's store (docs/agents-registry.md, "In the cockpit"): whether the `@name prompt` line is open and
 * its editing state. Apart from the board, so the board's snapshot and publish rate stay the agents' alone.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import { EMPTY_LINE, editLine, withError, type LineOutcome, type MentionLine } from '../src/core/input/mention-line.js';

/** The prompt's state and actions. */
export interface MentionPromptState {
  /** The open line, or null when the prompt is closed. */
  readonly line: MentionLine | null;
  /** A submitted line is being started: keys wait. */
  readonly busy: boolean;
  open(): void;
  /** One key (or a paste); returns what it asks for ('edit' when closed or busy). */
  key(key: string, names: readonly string[], paste?: boolean): LineOutcome;
  /** A submit failed: the error shows in the line until the next key. */
  fail(error: string): void;
  setBusy(busy: boolean): void;
  close(): void;
}

/** The prompt's store. */
export type MentionPrompt = StoreApi<MentionPromptState>;

/** Creates a closed prompt. */
export function createMentionPrompt(): MentionPrompt {
  return createStore<MentionPromptState>()((set, get) => ({
    line: null,
    busy: false,
    open: () => set({ line: EMPTY_LINE, busy: false }),
    key(key, names, paste = false) {
      const { line, busy } = get();
      if (line === null || busy) return 'edit';
      const next = editLine(line, key, names, paste);
      if (next.outcome === 'cancel') set({ line: null });
      else set({ line: next.line });
      return next.outcome;
    },
    fail(error) {
      const { line } = get();
      if (line !== null) set({ line: withError(line, error), busy: false });
    },
    setBusy: (busy) => set({ busy }),
    close: () => set({ line: null, busy: false }),
  }));
}
