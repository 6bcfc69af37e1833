/**
 * The board's actions over what is seen (docs/spec.md, "The board"): the
 * window's size, focus, zoom, help and scrollback. The pure changes are in
 * store/board-ui.ts; these apply them and publish. What a reader asks of the
 * agents (the status, a row, the list's reveal) is in store/board-rows.ts.
 */
import { focusMoved, focusSetTo, helpToggled, resized, scrolled, scrolledLines, zoomToggled } from './board-ui.js';
import type { BoardActions } from './board-types.js';
import type { BoardContext } from './board-context.js';

/** The actions on layout, focus and scrollback. */
export type ViewActions = Pick<BoardActions, 'resize' | 'focusMove' | 'focusSet' | 'zoomToggle' | 'helpToggle' | 'helpScroll' | 'scroll' | 'scrollLines'>;

/** The view's actions over the board's private state. */
export function viewActions(ctx: BoardContext): ViewActions {
  /** How far the focused pane's screen can scroll back. */
  const focusedHistory = (): number => {
    const focus = ctx.get().focus;
    return (focus === 'main' ? ctx.options.mainHistory?.() : ctx.records.get(focus)?.screen?.history?.()) ?? Infinity;
  };
  return {
    resize(cols, rows) {
      ctx.set(resized(cols, rows));
      ctx.publish();
    },

    focusMove(to) {
      ctx.setUi(focusMoved(ctx.get(), to));
    },

    focusSet(pane) {
      ctx.setUi(focusSetTo(ctx.get(), pane));
    },

    zoomToggle() {
      ctx.set(zoomToggled(ctx.get()));
      ctx.publish();
    },

    helpToggle() {
      ctx.set(helpToggled(ctx.get()));
    },

    helpScroll(top) {
      const helpTop = Math.max(0, Math.floor(top));
      if (ctx.get().help && ctx.get().helpTop !== helpTop) ctx.set({ helpTop });
    },

    scroll(pages) {
      ctx.setUi(scrolled(ctx.get(), pages, focusedHistory()));
    },

    scrollLines(lines) {
      ctx.setUi(scrolledLines(ctx.get(), lines, focusedHistory()));
    },
  };
}
