/**
 * The board's UI state (focus, zoom, scrollback, help, the window's size) as pure functions from the published
 * snapshot to the change to set; null sets nothing, so no listener runs. Zoom follows the focus; opening a panel
 * un-zooms a panel, not the main pane (docs/spec.md, "Feed pane lifecycle"); moving focus or zoom scrolls back
 * to the bottom.
 */
import type { FocusTarget } from '../src/core/protocol/commands.js';
import { focusOrder, neighbour, rectOf, type Layout, type PaneId } from '../src/core/panel/layout.js';
import type { BoardSnapshot } from './board-types.js';

/** The part of the snapshot the UI state is made of and decided from. */
export type UiSnapshot = Pick<BoardSnapshot, 'layout' | 'cols' | 'rows' | 'focus' | 'zoom' | 'zoomFrom' | 'help' | 'helpTop' | 'scrollback'>;

/** What a UI action sets. */
export type UiChange = Partial<Pick<BoardSnapshot, 'cols' | 'rows' | 'focus' | 'zoom' | 'zoomFrom' | 'help' | 'helpTop' | 'scrollback'>>;

/** The UI state of a new board. */
export const UI_START = { focus: 'main', zoom: null, zoomFrom: null, help: false, helpTop: 0, scrollback: 0 } as const satisfies UiChange;

/** Focus on `to`, at the bottom of its output; a zoomed window zooms it instead. */
function focusOn(s: UiSnapshot, to: PaneId): UiChange | null {
  if (s.focus === to) return null;
  return { focus: to, scrollback: 0, zoom: s.zoom === null ? null : to, zoomFrom: null };
}

/** Moves the focus to the next or previous pane, or to the neighbour in a direction. */
export function focusMoved(s: UiSnapshot, to: FocusTarget): UiChange | null {
  if (to === 'next' || to === 'prev') {
    const order = focusOrder(s.layout);
    const at = Math.max(0, order.indexOf(s.focus));
    const step = to === 'next' ? 1 : order.length - 1;
    return focusOn(s, order[(at + step) % order.length] ?? 'main');
  }
  const target = neighbour(s.layout, s.focus, to);
  return target === null ? null : focusOn(s, target);
}

/** Focuses a pane by id; a panel without a rectangle cannot take the focus. */
export function focusSetTo(s: UiSnapshot, pane: PaneId): UiChange | null {
  return pane === 'main' || s.layout.panels.some((p) => p.id === pane) ? focusOn(s, pane) : null;
}

/** Zooms the focused pane, or un-zooms: a panel the agent list zoomed gives the focus back where it was (tmux's choose-tree, then its last pane). */
export function zoomToggled(s: UiSnapshot): UiChange {
  if (s.zoom === null) return { zoom: s.focus, scrollback: 0, zoomFrom: null };
  return { zoom: null, scrollback: 0, zoomFrom: null, ...(s.zoomFrom === null ? {} : { focus: s.zoomFrom }) };
}

/**
 * A panel opened: a zoomed panel un-zooms so the new one is seen (docs/spec.md, "Feed pane lifecycle"); a zoomed
 * main pane stays, against the spec: a zoomed shell is the user working, and the status line counts the agent.
 */
export function unzoomed(s: UiSnapshot): UiChange | null {
  if (s.zoom === null || s.zoom === 'main') return null;
  return { zoom: null, scrollback: 0, zoomFrom: null, ...(s.zoomFrom === null ? {} : { focus: s.zoomFrom }) };
}

/** The user closed panel `id`: its focus goes to the panel below it, else the one above, else the main pane. */
export function focusAfterClose(s: UiSnapshot, id: number): UiChange | null {
  if (s.focus !== id) return null;
  const ids = s.layout.panels.map((p) => p.id);
  const at = ids.indexOf(id);
  const next = at < 0 ? undefined : (ids[at + 1] ?? ids[at - 1]);
  return { focus: next ?? 'main', scrollback: 0 };
}

/** Shows or hides the key help. */
export function helpToggled(s: UiSnapshot): UiChange {
  return { help: !s.help, helpTop: 0 };
}

/**
 * Scrolls the focused pane by whole pages (a page: its height less two rows),
 * never past the `history` lines its screen keeps; 0 returns to the bottom.
 */
export function scrolled(s: UiSnapshot, pages: number, history: number = Infinity): UiChange | null {
  if (pages === 0) return s.scrollback === 0 ? null : { scrollback: 0 };
  const page = Math.max(1, (rectOf(s.layout, s.focus)?.rows ?? s.rows) - 2);
  const scrollback = Math.min(Math.max(0, history), Math.max(0, s.scrollback - pages * page));
  return scrollback === s.scrollback ? null : { scrollback };
}

/** Scrolls the focused pane by `lines` (the wheel; negative is back), never past the `history` lines its screen keeps. */
export function scrolledLines(s: UiSnapshot, lines: number, history: number = Infinity): UiChange | null {
  const scrollback = Math.min(Math.max(0, history), Math.max(0, s.scrollback - lines));
  return scrollback === s.scrollback ? null : { scrollback };
}

/** The window's new size, in whole cells, at least one each way. */
export function resized(cols: number, rows: number): UiChange {
  return { cols: Math.max(1, Math.floor(cols)), rows: Math.max(1, Math.floor(rows)) };
}

/** The zoom kept by a publish: a zoomed panel that is gone un-zooms. */
export function zoomKept(zoom: PaneId | null, exists: (id: number) => boolean): PaneId | null {
  return typeof zoom === 'number' && !exists(zoom) ? null : zoom;
}

/** The focus kept by a publish: a panel neither placed nor zoomed in `layout` gives it back to the main pane. */
export function focusKept(focus: PaneId, layout: Layout): PaneId {
  if (typeof focus !== 'number' || layout.zoomed?.id === focus) return focus;
  return layout.panels.some((p) => p.id === focus) ? focus : 'main';
}

/** The agent list opened a pane: focused and zoomed over the window, at the bottom of its output; un-zooming gives the focus back to `from`. */
export function revealed(pane: PaneId, from: PaneId): UiChange {
  return { focus: pane, zoom: pane, zoomFrom: from === pane ? null : from, scrollback: 0, help: false };
}
