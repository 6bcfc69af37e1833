/**
 * What changed between two board snapshots, for the pane source: whether the drawn structure is the same (React renders
 * only when not), and whether only header text changed (a frame patches those rows). Pure, field by field, no key
 * built: a silent cockpit asks once a second.
 */
import type { BoardState } from '../../../store/board.js';

/**
 * Whether two snapshots show the same structure; React renders again only
 * when they do not (overlay mode). Compared field by field, without building
 * a key: a silent cockpit asks once a second, for its headers' elapsed time.
 */
export function sameChrome(a: BoardState, b: BoardState): boolean {
  if (a.cols !== b.cols || a.rows !== b.rows || a.focus !== b.focus || a.zoom !== b.zoom || a.help !== b.help) return false;
  if (a.scrollback !== b.scrollback || a.drawingOff !== b.drawingOff) return false;
  if (a.layout !== b.layout) {
    const p = a.layout.panels;
    const q = b.layout.panels;
    if (p.length !== q.length) return false;
    for (let i = 0; i < p.length; i++) {
      const r = p[i].rect;
      const t = q[i].rect;
      if (p[i].id !== q[i].id || r.x !== t.x || r.y !== t.y || r.cols !== t.cols || r.rows !== t.rows) return false;
    }
  }
  if (a.panels === b.panels) return true;
  if (a.panels.length !== b.panels.length) return false;
  // A panel's state is chrome too: the status line counts agents by state.
  for (let i = 0; i < a.panels.length; i++) {
    const p = a.panels[i];
    const q = b.panels[i];
    if (p.id !== q.id || p.shown !== q.shown || p.state !== q.state) return false;
  }
  return true;
}

/**
 * The panels whose header text alone changed from `b` to `a`, when nothing
 * else in the snapshot did (a second's tick, an agent's new token count);
 * undefined when anything else changed.
 */
export function headerChanges(a: BoardState, b: BoardState): number[] | undefined {
  if (a.layout !== b.layout || a.cols !== b.cols || a.rows !== b.rows || a.focus !== b.focus || a.zoom !== b.zoom || a.help !== b.help) return undefined;
  if (a.scrollback !== b.scrollback || a.drawingOff !== b.drawingOff || a.noColor !== b.noColor || a.asking !== b.asking || a.statusLine !== b.statusLine) return undefined;
  if (a.panels.length !== b.panels.length) return undefined;
  const ids: number[] = [];
  for (let i = 0; i < a.panels.length; i++) {
    const p = a.panels[i];
    const q = b.panels[i];
    if (p === q) continue;
    if (p.id !== q.id || p.state !== q.state || p.shown !== q.shown || p.closing !== q.closing || p.reason !== q.reason || p.cols !== q.cols || p.rows !== q.rows) return undefined;
    if (p.header !== q.header) ids.push(p.id);
  }
  return ids;
}
