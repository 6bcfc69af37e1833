/**
 * What one supervision tick decides (docs/spec.md, "Supervision"): the
 * watchdog's decisions per agent, the lease of each feed pane, and when the
 * next of them is due, so the board's clock (store/board-tick.ts) sleeps till then.
 */
import { assertNever } from '../src/core/never.js';
import { decisionDueAt, watchDueAt, watchdog } from '../src/core/panel/panel-state.js';
import type { BoardContext } from './board-context.js';
import { leaseDueAt, leaseOf } from './feed-panes.js';
import { applyDecision } from './supervision.js';

/** Carries out every decision due at `now`; true when any record changed (the layout must be published). */
export function supervise(ctx: BoardContext, now: number): boolean {
  const { records, sup } = ctx;
  let changed = false;
  for (const rec of [...records.values()]) {
    if (rec.kind === 'agent') {
      for (const d of watchdog(rec, now)) {
        applyDecision(sup, rec, d, now);
        changed = true;
      }
      continue;
    }
    const lease = leaseOf(rec, now);
    if (lease === null) continue;
    changed = true;
    switch (lease.type) {
      case 'remove':
        ctx.remove(rec);
        break;
      case 'orphan':
        Object.assign(rec, lease.change);
        break;
      default:
        assertNever(lease);
    }
  }
  return changed;
}

/** When the next decision (or, seen, the next second of an agent's header) is due; undefined when none is. */
export function nextDecisionAt(ctx: BoardContext, now: number): number | undefined {
  let due: number | undefined;
  // Unseen, a live agent's seconds need no tick: only its watchdog's next decision.
  const dueAt = ctx.vars.watched() ? watchDueAt : decisionDueAt;
  for (const rec of ctx.records.values()) {
    const at = rec.kind === 'agent' ? dueAt(rec, now) : leaseDueAt(rec);
    if (at !== undefined && (due === undefined || at < due)) due = at;
  }
  return due;
}
