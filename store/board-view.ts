/**
 * The board's actions over what is seen (docs/spec.md, "The board"): the
 * window's size, focus, zoom, help, scrollback, the agent list's reveal of
 * a kept transcript, and the status API. The pure changes are in
 * store/board-ui.ts; these apply them and publish.
 */
import { focusMoved, focusSetTo, helpToggled, resized, revealed, scrolled, scrolledLines, zoomToggled } from './board-ui.js';
import type { BoardActions } from './board-types.js';
import { isLive } from '../src/core/panel/panel-state.js';
import { rowOf } from './panel-record.js';
import { agentCounter, statusOf } from './status.js';
import type { BoardContext } from './board-context.js';

/** The actions on layout, focus and what a reader sees. */
export type ViewActions = Pick<
  BoardActions,
  'resize' | 'status' | 'agentCounts' | 'rowOf' | 'screenOf' | 'reveal' | 'transcriptKept' | 'focusMove' | 'focusSet' | 'zoomToggle' | 'helpToggle' | 'helpScroll' | 'scroll' | 'scrollLines'
>;

/** The view's actions over the board's private state. */
export function viewActions(ctx: BoardContext): ViewActions {
  const { records, kept, history } = ctx;
  const counter = agentCounter(history);
  /** How far the focused pane's screen can scroll back. */
  const focusedHistory = (): number => {
    const focus = ctx.get().focus;
    return (focus === 'main' ? ctx.options.mainHistory?.() : records.get(focus)?.screen?.history?.()) ?? Infinity;
  };
  return {
    resize(cols, rows) {
      ctx.set(resized(cols, rows));
      ctx.publish();
    },

    status(now) {
      return statusOf([...records.values()].map((r) => rowOf(r, now)), history, records);
    },

    agentCounts() {
      return counter(records.values());
    },

    rowOf(id, now) {
      // A panel still held wins over its own history row; the newest rows are the ones asked for.
      const rec = records.get(id);
      if (rec) return rowOf(rec, now);
      for (let i = history.length - 1; i >= 0; i--) if (history[i]!.id === id) return history[i];
      return undefined;
    },

    screenOf(id) {
      return records.get(id)?.screen ?? kept.get(id)?.screen;
    },

    focusMove(to) {
      ctx.setUi(focusMoved(ctx.get(), to));
    },

    focusSet(pane) {
      ctx.setUi(focusSetTo(ctx.get(), pane));
    },

    reveal(id, now) {
      const rec = records.get(id);
      if (rec && !rec.closed && rec.screen) {
        // Opened while it lingers: it stays until the user closes it, as one brought back below.
        if (!isLive(rec.state)) rec.closeAt = undefined;
        ctx.set(revealed(id, ctx.get().focus));
        ctx.publish(now);
        return true;
      }
      const back = kept.get(id);
      if (!back) return false;
      // Back on the board until the user closes it again: no second linger under a reader's eyes.
      kept.delete(id);
      back.closeAt = undefined;
      records.set(id, back);
      ctx.set(revealed(id, ctx.get().focus));
      ctx.publish(now);
      if (back.pending.size > 0) ctx.wakes.wake(); // lines written while it was off the board
      return true;
    },

    transcriptKept(id) {
      const rec = records.get(id);
      return rec ? !rec.closed && rec.screen !== undefined : kept.has(id);
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
