/**
 * What the pane source (pane-source.ts) draws from: every pane's screen as SGR rows (inline) or cells (overlay),
 * the panels' header rows and the overlays that paste them over the chrome, each made again only when what it is
 * made from changed, the last frame's objects otherwise, so the output stage looks only at what did.
 */
import { drawn, type PaneId } from '../../core/panel/layout.js';
import type { Board, BoardState } from '../../../store/board.js';
import { headerLine, headerRoom, headerRow } from '../../core/panel/header-row.js';
import { paletteOf } from '../../core/panel/colors.js';
import { parseRow, type CellRow } from './sgr-cells.js';
import { columnsOf, rewritten } from './cells/header-cells.js';
import { screenCells, screenRows } from './screen-rows.js';
import { XtermScreen } from './screen.js';
import type { Overlay } from './term-output.js';

/** A header row made, and what it was made from; a new second's text and row are written into it (no copy a second). */
interface HeaderMade {
  header: string;
  readonly state: BoardState['panels'][number]['state'];
  readonly cols: number;
  readonly focused: boolean;
  readonly scrollback: number;
  readonly hidden: number;
  readonly noColor: boolean;
  row: CellRow;
  /** Per unit of the header text, its cell's column (cells/header-cells.ts); undefined when the row has to be parsed whole. */
  readonly columns: Int16Array | undefined;
}

/** The last overlay made for a pane's header or body, and the rows it was cut from. */
interface Memo {
  readonly rows: readonly CellRow[];
  readonly from: number;
  readonly to: number;
  readonly overlay: Overlay;
}

/** The same rows: the same array, or one-row arrays of the same row (a header's). */
function sameRows(a: readonly CellRow[], b: readonly CellRow[]): boolean {
  return a === b || (a.length === 1 && b.length === 1 && a[0] === b[0]);
}

interface Cached<T> {
  readonly version: number;
  readonly scrollback: number;
  readonly cols: number;
  readonly rows: number;
  readonly value: T;
}

/** The screens' rows and cells and the panels' header rows, each made again only when what it is made from changed. */
export class PaneCells {
  /** Per screen, how many of its writes were parsed. */
  readonly versions = new WeakMap<XtermScreen, number>();
  board: Board | undefined;
  private readonly rowCache = new Map<PaneId, Cached<readonly string[]>>();
  private readonly cellCache = new Map<PaneId, Cached<readonly CellRow[]>>();
  private readonly headerCache = new Map<number, HeaderMade>();
  private readonly headMemo = new Map<PaneId, Memo>();
  private readonly bodyMemo = new Map<PaneId, Memo>();

  constructor(readonly main: XtermScreen) {}

  screenOf(pane: PaneId): XtermScreen | undefined {
    if (pane === 'main') return this.main;
    const s = this.board?.getState().screenOf(pane);
    return s instanceof XtermScreen ? s : undefined;
  }

  /** Forgets the panels that are gone, so the caches stay bounded. */
  forgetGone(state: BoardState): void {
    if (this.rowCache.size + this.cellCache.size + this.headerCache.size <= 3 * (state.panels.length + 1)) return;
    const ids = new Set<PaneId>(['main', ...state.panels.map((p) => p.id)]);
    for (const c of [this.rowCache, this.cellCache, this.headMemo, this.bodyMemo]) for (const k of c.keys()) if (!ids.has(k)) c.delete(k);
    for (const k of this.headerCache.keys()) if (!ids.has(k)) this.headerCache.delete(k);
  }

  /** A cached conversion of a pane's screen, redone only when the screen changed. */
  private cached<T>(cache: Map<PaneId, Cached<T>>, pane: PaneId, scrollback: number, make: (s: XtermScreen) => T): T | undefined {
    const screen = this.screenOf(pane);
    if (!screen) return undefined;
    const version = this.versions.get(screen) ?? 0;
    const { cols, rows } = screen.term;
    const c = cache.get(pane);
    if (c && c.version === version && c.scrollback === scrollback && c.cols === cols && c.rows === rows) return c.value;
    const value = make(screen);
    cache.set(pane, { version, scrollback, cols, rows, value });
    return value;
  }

  rows(pane: PaneId, scrollback: number): readonly string[] {
    return this.cached(this.rowCache, pane, scrollback, (s) => screenRows(s.term, scrollback)) ?? [];
  }

  cells(pane: PaneId, scrollback: number): readonly CellRow[] | undefined {
    return this.cached(this.cellCache, pane, scrollback, (s) => screenCells(s.term, scrollback));
  }

  /**
   * A panel's header row as cells, made again only when its text, focus or width changed (compared field by field:
   * no key string built each second); a new second's text alone rewrites the cells of the figures that moved.
   */
  private header(view: BoardState['panels'][number], cols: number, focused: boolean, scrollback: number, hidden: number): CellRow {
    const noColor = this.board?.getState().noColor ?? false;
    const c = this.headerCache.get(view.id);
    const same = c !== undefined && c.state === view.state && c.cols === cols && c.focused === focused && c.scrollback === scrollback && c.hidden === hidden && c.noColor === noColor;
    if (same && c.header === view.header) return c.row;
    const quick = c !== undefined && same && c.columns ? rewritten(c.row, c.header, view.header, c.columns) : undefined;
    if (c !== undefined && quick) {
      c.header = view.header;
      c.row = quick;
      return quick;
    }
    const row = parseRow(headerRow(view, cols, focused, scrollback, hidden, paletteOf(noColor)), cols);
    // The whole text drawn (the scrollback's note too), unclipped: else a moved figure could move the clip's ellipsis.
    const columns = columnsOf(headerLine(view.header, scrollback), row, headerRoom(cols, hidden));
    this.headerCache.set(view.id, { header: view.header, state: view.state, cols, focused, scrollback, hidden, noColor, row, columns });
    return row;
  }

  /**
   * The overlay of rows `from` to `to` of `rows` at a place: the last frame's
   * object while they and the place are the same, so the output stage looks
   * only at what changed (a silent cockpit's second: its headers' rows).
   */
  overlay(body: boolean, id: PaneId, x: number, y: number, cols: number, rows: readonly CellRow[], from: number, to: number): Overlay {
    const memo = body ? this.bodyMemo : this.headMemo;
    const m = memo.get(id);
    const o = m?.overlay;
    if (m && o && o.x === x && o.y === y && o.cols === cols && m.from === from && m.to === to && sameRows(m.rows, rows)) return o;
    const made: Overlay = { x, y, cols, rows: rows.slice(from, to) };
    memo.set(id, { rows, from, to, overlay: made });
    return made;
  }

  /** A panel's header row as an overlay at its place, through the memo the frames share. */
  headerOverlay(s: BoardState, view: BoardState['panels'][number], rect: { x: number; y: number; cols: number }, lastPanel: PaneId | undefined): Overlay {
    const scrollback = view.id === s.focus ? s.scrollback : 0;
    const hidden = view.id === lastPanel ? s.layout.hidden.length : 0;
    return this.overlay(false, view.id, rect.x, rect.y, rect.cols, [this.header(view, rect.cols, view.id === s.focus, scrollback, hidden)], 0, 1);
  }

  /** Every drawn pane's screen cells at its body's place, each panel's header row above its body. */
  overlays(): Overlay[] {
    const s = this.board?.getState();
    if (!s || s.help) return [];
    const out: Overlay[] = [];
    const lastPanel = s.layout.zoomed ? undefined : s.layout.panels.at(-1)?.id;
    for (const { id, rect } of drawn(s.layout).panes) {
      const scrollback = id === s.focus ? s.scrollback : 0;
      const cells = this.cells(id, scrollback);
      if (!cells) continue;
      // A panel's row 0 is its header; a scrolled-back main pane's row 0 says so (both chrome).
      if (id !== 'main') {
        const view = s.panels.find((p) => p.id === id);
        if (view) out.push(this.headerOverlay(s, view, rect, lastPanel));
      }
      const skip = id !== 'main' ? 0 : scrollback > 0 ? 1 : 0;
      const top = id === 'main' ? rect.y : rect.y + 1;
      out.push(this.overlay(true, id, rect.x, top + skip, rect.cols, cells, skip, rect.rows - (top - rect.y)));
    }
    return out;
  }

  /** The header rows of the drawn panels among `ids`; undefined while help covers them. */
  headerOverlays(ids: readonly number[]): Overlay[] | undefined {
    const s = this.board?.getState();
    if (!s || s.help) return undefined;
    const l = s.layout;
    const lastPanel = l.zoomed ? undefined : l.panels.at(-1)?.id;
    const out: Overlay[] = [];
    // The places `drawn` gives, read in place: a second's headers make no list of every pane.
    for (const { id, rect } of l.zoomed ? [l.zoomed] : l.panels) {
      if (id === 'main' || !ids.includes(id)) continue;
      const view = s.panels.find((p) => p.id === id);
      if (view) out.push(this.headerOverlay(s, view, rect, lastPanel));
    }
    return out;
  }
}

