/**
 * What the board publishes of its records, as pure functions: which are on the board, their layout and snapshot
 * rows. Identities are kept while nothing changed (the same layout, views and array), so selectors see no change
 * and a streaming agent costs no React work between frames. A hidden record is supervised like a shown one.
 */
import { layout, type Layout, type PaneId } from '../src/core/panel/layout.js';
import type { PanelView } from './board-types.js';
import { viewOf, type PanelRecord } from './panel-record.js';

/** What a layout of the records on the board is computed from besides the records. */
export interface LayoutInputs {
  readonly cols: number;
  readonly rows: number;
  readonly zoom: PaneId | null;
  /** Null while drawing; otherwise nothing is placed. */
  readonly drawingOff: string | null;
  /** The main pane's share of the width, in percent. */
  readonly mainPercent: number;
  /** The window's last row is the status line. */
  readonly statusLine: boolean;
}

/** The records on the board, in the order they opened. */
export function onBoard(records: ReadonlyMap<number, PanelRecord>): PanelRecord[] {
  return [...records.values()].filter((r) => !r.closed);
}

/** The ids a layout places: those on the board while drawing, none when nothing is drawn. */
function placed(records: ReadonlyMap<number, PanelRecord>, inputs: LayoutInputs): number[] {
  return inputs.drawingOff === null ? onBoard(records).map((r) => r.id) : [];
}

/** The key of the layout these would give. */
export function layoutKeyOf(records: ReadonlyMap<number, PanelRecord>, inputs: LayoutInputs): string {
  return `${inputs.cols}x${inputs.rows}|${String(inputs.zoom)}|${inputs.mainPercent}|${inputs.statusLine}|${placed(records, inputs).join(',')}`;
}

/** The layout of the records on the board. */
export function layoutOf(records: ReadonlyMap<number, PanelRecord>, inputs: LayoutInputs): Layout {
  const { cols, rows, zoom, mainPercent, statusLine } = inputs;
  return layout({ cols, rows, panels: placed(records, inputs), ...(zoom === null ? {} : { zoom }), mainPercent, statusLine });
}

/**
 * The snapshot rows of the board's records at `now`, hidden ones with the layout's reason (or why nothing is
 * drawn); `previous` itself when every row is the same object as before.
 */
export function panelsOf(
  records: ReadonlyMap<number, PanelRecord>,
  lay: Layout,
  drawingOff: string | null,
  now: number,
  previous: readonly PanelView[],
): readonly PanelView[] {
  const hidden = new Map(lay.hidden.map((h) => [h.id, h.reason]));
  const views = onBoard(records).map((r) => viewOf(r, now, drawingOff ?? hidden.get(r.id)));
  return views.length === previous.length && views.every((v, i) => v === previous[i]) ? previous : views;
}
