/**
 * The steering line drawn over the last row of its panel (docs/agents.md, "Steering"):
 * the panels' screens are overlays drawn past Ink (src/io/terminal/pane-source.ts),
 * so the line replaces that row of the panel's overlay, as the mention
 * prompt's row cuts the overlays under it.
 */
import type { Rect } from '../../../core/panel/layout.js';
import type { Board } from '../../../../store/board.js';
import type { SteerLine } from '../../../../store/steer-line.js';
import { parseRow } from '../../terminal/sgr-cells.js';
import type { Overlay } from '../../terminal/term-output.js';
import { steerRow } from './steer-keys.js';

/** The overlays with the open steering line on its panel's last row; unchanged while the line is closed. */
export function steerOverlay(overlays: Overlay[], board: Board, steer: SteerLine | undefined): Overlay[] {
  const line = steer?.getState();
  if (!line || line.panel === null) return overlays;
  const s = board.getState();
  const rect: Rect | undefined = s.layout.zoomed?.id === line.panel ? s.layout.zoomed.rect : s.layout.panels.find((p) => p.id === line.panel)?.rect;
  if (!rect) return overlays;
  const y = rect.y + rect.rows - 1;
  const row = parseRow(steerRow(line.panel, line.text, rect.cols, line.error, line.busy), rect.cols);
  const at = overlays.findIndex((o) => o.x === rect.x && o.y <= y && y < o.y + o.rows.length);
  if (at === -1) return [...overlays, { x: rect.x, y, cols: rect.cols, rows: [row] }];
  return overlays.map((o, i) => (i === at ? { ...o, rows: o.rows.map((r, k) => (o.y + k === y ? row : r)) } : o));
}
