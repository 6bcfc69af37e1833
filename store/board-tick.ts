/**
 * The board's clock-driven actions (docs/spec.md, "Panel state machine" and
 * "Supervision"): the supervision tick (its decisions in store/board-supervise.ts),
 * the coalesced flush of pending output into screens, and what the clock asks
 * to know when to wake (store/board-wake.ts).
 */
import { ORCH_FLUSH_INTERVAL } from '../src/core/policy.js';
import type { BoardActions } from './board-types.js';
import { nextDecisionAt, supervise } from './board-supervise.js';
import { drain, waiting } from './panel-output.js';
import type { BoardContext } from './board-context.js';

/** The actions the board's clock calls, and its listeners. */
export type TickActions = Pick<BoardActions, 'tick' | 'flush' | 'pending' | 'active' | 'nextDue' | 'onWake' | 'onTick' | 'listen'>;

/** Whether anybody sees the board (a client attached): unseen, the clock ticks for supervision alone. */
export type SeenActions = Pick<BoardActions, 'seenBy' | 'seen' | 'seenAgain'>;

/** The clock's actions over the board's private state. */
export function tickActions(ctx: BoardContext): TickActions {
  const { records, vars, wakes, events, sup, counters } = ctx;
  const tickListeners = new Set<(now: number) => void>();
  return {
    tick(now) {
      // The questions' timeouts, then the watchdog and the leases: supervise stands first in the `||` so it runs every tick.
      const asked = ctx.questions.tick(now);
      const changed = supervise(ctx, now) || asked;
      // A tick that decided nothing moved only the clock: the headers' elapsed time (when seen), not the layout.
      if (changed) ctx.publish(now);
      else ctx.publishTime(now, vars.watched());
      for (const l of [...tickListeners]) {
        try {
          l(now);
        } catch (err) {
          ctx.listenFailed(err);
        }
      }
    },

    flush(now) {
      if (now - vars.lastFlushAt < ORCH_FLUSH_INTERVAL) return false;
      vars.lastFlushAt = now;
      wakes.flushed();
      const { wrote, failures: inARow, failed } = drain(records.values(), now, vars.failures, sup);
      vars.failures = inARow;
      if (failed !== undefined) ctx.disableDrawing(failed);
      if (wrote) counters.flushes++;
      if (wrote || vars.feedDirty || vars.drawingOff !== ctx.get().drawingOff) {
        vars.feedDirty = false;
        ctx.publish(now);
      }
      return wrote;
    },

    pending() {
      return vars.feedDirty || vars.drawingOff !== ctx.get().drawingOff || waiting(records.values());
    },

    active() {
      return records.size > 0;
    },

    nextDue(now) {
      return nextDecisionAt(ctx, now);
    },

    onWake(listener) {
      return wakes.onWake(listener);
    },

    onTick(listener) {
      tickListeners.add(listener);
      return () => void tickListeners.delete(listener);
    },

    listen(listener, onError = ctx.listenFailed) {
      return events.add(listener, onError);
    },
  };
}

/** Who sees the board, as the cockpit says (`seenBy`); a board nobody told is seen. */
export function seenActions(ctx: BoardContext): SeenActions {
  const { vars, wakes } = ctx;
  return {
    seenBy(seen) {
      vars.watched = seen;
    },
    seen() {
      return vars.watched();
    },
    seenAgain(now) {
      ctx.publishTime(now);
      wakes.notify();
    },
  };
}
