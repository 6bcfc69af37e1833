/**
 * Feed panes: panels an external program opens over the control socket and feeds raw bytes (docs/spec.md, "Feed
 * pane lifecycle"), with their lease, as pure functions of the records and `now`. Every op refreshes the lease;
 * a silent owner's pane fails and leaves; a done pane lingers, then leaves.
 */
import { fits } from '../src/core/panel/layout.js';
import { VPANE_ERRORS } from '../src/core/errors.js';
import {
  MPLEX_PANES_MAX,
  MPLEX_VPANE_LEASE,
  MPLEX_VPANE_LINGER_MAX,
  MPLEX_VPANE_MAX,
  MPLEX_VPANE_ORPHAN_LINGER,
  ORCH_LINGER,
} from '../src/core/policy.js';
import type { BoardActions, OpenSpec } from './board-types.js';
import { clipHeader, type PanelRecord } from './panel-record.js';

/** A vpane_write op's header, state and end, as the board's `feed` action takes it. */
export type FeedOp = Parameters<BoardActions['feed']>[1];

/** What an op or the lease changes in a feed pane's record. */
export type FeedChange = Partial<Pick<PanelRecord, 'header' | 'state' | 'closeAt' | 'finishedAt'>>;

/** The lease's verdict on a feed pane at `now`. */
export type LeaseDecision =
  | { readonly type: 'remove' }
  | { readonly type: 'orphan'; readonly change: FeedChange };

/**
 * Why another feed pane cannot open (the vpane_open error), or null: too many
 * feed panes or panes, nothing drawn, or no room in a window of this size.
 */
export function feedRefusal(
  records: ReadonlyMap<number, PanelRecord>,
  window: { readonly cols: number; readonly rows: number; readonly drawingOff: string | null },
): string | null {
  const all = [...records.values()];
  if (all.filter((r) => r.kind === 'feed').length >= MPLEX_VPANE_MAX) return VPANE_ERRORS.tooManyFeedPanes;
  if (records.size + 1 >= MPLEX_PANES_MAX) return VPANE_ERRORS.tooManyPanes;
  if (window.drawingOff !== null) return `feed panes are not drawn: ${window.drawingOff}`;
  return fits(window.cols, window.rows, all.filter((r) => !r.closed).length + 1);
}

/** The main pane's share of the width after a vpane_open: its `main_percent` when in 1..99, else unchanged. */
export function mainPercentOf(spec: OpenSpec, current: number): number {
  return spec.mainPercent !== undefined && spec.mainPercent >= 1 && spec.mainPercent <= 99 ? Math.floor(spec.mainPercent) : current;
}

/** What a vpane_write op changes: the header (clipped), the state, and on the first `done` the linger. */
export function feedChange(rec: Pick<PanelRecord, 'closeAt'>, op: FeedOp, now: number): FeedChange {
  const done = op.done && rec.closeAt === undefined;
  const linger = Math.min(Math.max(0, (op.linger ?? ORCH_LINGER / 1000) * 1000), MPLEX_VPANE_LINGER_MAX);
  return {
    ...(op.header === undefined ? {} : { header: clipHeader(op.header) }),
    ...(op.state === undefined ? {} : { state: op.state }),
    ...(done ? { closeAt: now + linger, finishedAt: now } : {}),
  };
}

/** The lease of a feed pane at `now` (docs/spec.md, "Feed pane lifecycle"): remove it once its linger is over, orphan it when its owner is silent. */
export function leaseOf(rec: Pick<PanelRecord, 'closeAt' | 'lastEventAt' | 'header'>, now: number): LeaseDecision | null {
  if (rec.closeAt !== undefined) return now >= rec.closeAt ? { type: 'remove' } : null;
  if (now - rec.lastEventAt < MPLEX_VPANE_LEASE) return null;
  return {
    type: 'orphan',
    change: { header: clipHeader(`owner gone: ${rec.header.trim()}`), state: 'failed', closeAt: now + MPLEX_VPANE_ORPHAN_LINGER },
  };
}

/** When the lease of a feed pane is next due (its removal, or its owner's silence running out): `leaseOf` decides then. */
export function leaseDueAt(rec: Pick<PanelRecord, 'closeAt' | 'lastEventAt'>): number {
  return rec.closeAt ?? rec.lastEventAt + MPLEX_VPANE_LEASE;
}
