/**
 * What the components need of the screens, handed in by the cockpit's wiring (components never import src/io,
 * docs/architecture.md): a pane's rows as SGR-coded strings, and a render cue that moves at most at the output stage's
 * frame rate when anything on screen may have changed, so React renders only then.
 */
import type { PaneId } from './layout.js';

/** The screens as rows, and the render cue. */
export interface PaneSource {
  /** The rows a pane shows (its screen's size), `scrollback` lines back from the bottom. */
  rows(pane: PaneId, scrollback: number): readonly string[];
  /** A number that changes when the pane's rows may have changed. */
  paneVersion(pane: PaneId): number;
  /** Subscribes to the render cue; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void;
  /** The render cue's current value. */
  version(): number;
}
