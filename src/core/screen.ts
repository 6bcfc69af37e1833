/**
 * What the board needs of a pane's screen. The real one is an
 * `@xterm/headless` terminal (src/io); the board receives a factory so that
 * it never imports IO, and tests can count or fail writes.
 */

/** A terminal screen holding a pane's cells and scrollback. */
export interface Screen {
  /** Feeds terminal output; parsing may finish later (xterm is asynchronous). */
  write(data: string): void;
  /** Follows the pane's new size. */
  resize(cols: number, rows: number): void;
  /** Lines above the visible rows that can be scrolled back to (omitted: unbounded). */
  history?(): number;
  /** Frees the screen; it is not used again. */
  dispose(): void;
}

/** Makes a screen of the given size. */
export type ScreenFactory = (cols: number, rows: number) => Screen;
