/**
 * The board's actions over its agents' rows and kept transcripts (docs/spec.md, "Status API" and "The board"): the
 * status, the status line's counts, one agent's row, a panel's screen, the list's reveal of a kept transcript, and the
 * rows' version the open list follows. The rows are made in store/status.ts.
 */
import { revealed } from './board-ui.js';
import type { BoardActions } from './board-types.js';
import { isLive } from '../src/core/panel/panel-state.js';
import { rowOf, type PanelRecord } from './panel-record.js';
import { messageOf } from '../src/core/errors.js';
import { agentCounter, statusOf } from './status.js';
import type { BoardContext } from './board-context.js';

/** The actions on what a reader asks of the agents and their transcripts. */
export type RowActions = Pick<BoardActions, 'status' | 'agentCounts' | 'rowOf' | 'screenOf' | 'reveal' | 'transcriptKept' | 'rowsVersion' | 'onRowsMoved'>;

/** The rows' actions over the board's private state. */
export function rowActions(ctx: BoardContext): RowActions {
  const { records, kept, history } = ctx;
  const counter = agentCounter(history);
  return {
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
      if (!back || !newScreen(ctx, back)) return false;
      // Back on the board until the user closes it again: no second linger under a reader's eyes.
      kept.delete(id);
      back.closeAt = undefined;
      records.set(id, back);
      ctx.set(revealed(id, ctx.get().focus));
      ctx.publish(now);
      ctx.wakes.wake(); // its text is formatted again into the new screen
      return true;
    },

    transcriptKept(id) {
      const rec = records.get(id);
      return rec ? !rec.closed && rec.screen !== undefined : kept.has(id);
    },

    rowsVersion: () => ctx.rows.version,

    onRowsMoved: (listener) => ctx.rows.subscribe(listener),
  };
}

/**
 * A kept transcript's new screen (kept ones have none), at its last size,
 * its formatter's calls formatted again into it; false when there is no
 * screen factory, drawing is off or the factory failed (said in the log).
 */
function newScreen(ctx: BoardContext, rec: PanelRecord): boolean {
  const create = ctx.options.createScreen;
  if (!create || ctx.vars.drawingOff !== null || !rec.formatter) return false;
  try {
    rec.screen = create(rec.cols, rec.rows);
  } catch (err) {
    ctx.log(`panel ${rec.id}: display failed: ${messageOf(err)}`);
    return false;
  }
  rec.pending.clear();
  rec.formatter.formatAgain();
  return true;
}
