import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPaneSource } from '../../../src/io/terminal/pane-source.js';
import { XtermScreen } from '../../../src/io/terminal/screen.js';
import { parseRow, type CellRow } from '../../../src/io/terminal/sgr-cells.js';
import { headerRow } from '../../../src/core/panel/header-row.js';
import { paletteOf } from '../../../src/core/panel/colors.js';
import { drawn } from '../../../src/core/panel/layout.js';
import { createBoard } from '../../../store/board.js';
import { allocated } from '../../helpers/allocated.js';

// A parse makes a row with styles of its own; a rewritten second keeps its last row's styles (no module mock: the
// unit project shares modules between files, so a mock there would count nothing).
const rewrote = (row: CellRow, last: CellRow | undefined): boolean => last !== undefined && row !== last && row.styles === last.styles;

beforeAll(() => vi.stubEnv('TAI_INTERNALS', '1'));
afterAll(() => vi.unstubAllEnvs());

const T0 = 1_000_000;

/** A board and its pane source in overlay mode, as the cockpit wires them. */
function rig(cols: number, rows: number, noColor = false) {
  const source = createPaneSource(new XtermScreen(cols, rows), 0, Date.now, false);
  const board = createBoard({ createScreen: (c, r) => source.createScreen(c, r), cols, rows, noColor });
  source.attach(board);
  return { source, board };
}

/** The header rows of the drawn panels as a full frame draws them: the SGR string of headerRow, parsed whole. */
function fullHeaders(board: ReturnType<typeof rig>['board']): CellRow[] {
  const s = board.getState();
  const lastPanel = s.layout.zoomed ? undefined : s.layout.panels.at(-1)?.id;
  return drawn(s.layout).panes.flatMap(({ id, rect }) => {
    const view = s.panels.find((p) => p.id === id);
    if (id === 'main' || !view) return [];
    const scrollback = id === s.focus ? s.scrollback : 0;
    const hidden = id === lastPanel ? s.layout.hidden.length : 0;
    return [parseRow(headerRow(view, rect.cols, id === s.focus, scrollback, hidden, paletteOf(s.noColor)), rect.cols)];
  });
}

/** A small deterministic generator (the same states every run). */
function random(seed: number) {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    return x / 0x80000000;
  };
}

const LABEL_PARTS = ['agent', 'fix tests', '漢字', 'e\u0301', '🙂', ' · ', 'x'.repeat(30), '⎇ lane', 'tab\there', '1:2'];

describe("a panel header's new second", () => {
  it('is made without parsing a row: only the figures that moved are rewritten', () => {
    const { source, board } = rig(160, 60);
    const ids = [0, 1, 2].map((k) => board.getState().open({ label: `agent ${k}` }, T0));
    source.headerOverlays(ids);
    let last = source.headerOverlays(ids)!;
    let parsed = 0;
    for (let s = 1; s <= 90; s++) {
      board.getState().tick(T0 + s * 1000);
      const heads = source.headerOverlays(ids)!;
      parsed += heads.filter((o, k) => !rewrote(o.rows[0]!, last[k]!.rows[0])).length;
      expect(heads.map((o) => o.rows[0])).toEqual(fullHeaders(board));
      for (let k = 0; k < heads.length; k++) expect(heads[k]!.rows[0]).not.toBe(last[k]!.rows[0]); // a new second, a new row
      last = heads;
    }
    // Parsed whole only when the text's length changes (9s to 10s, 59s to 1m00s): twice a panel in 90 seconds, not 90 times.
    expect(parsed).toBe(2 * ids.length);
    source.stop();
  });

  it("allocates at most 12,000 bytes a second for 8 headers: their new characters, no list of the panes, no copy of a header's memo", () => {
    const { source, board } = rig(160, 60);
    const ids = Array.from({ length: 8 }, (_, k) => board.getState().open({ label: `agent ${k}` }, T0));
    const per: number[] = [];
    for (let s = 1; s <= 200; s++) {
      board.getState().tick(T0 + s * 1000);
      const bytes = allocated(() => source.headerOverlays(ids));
      if (bytes !== undefined && s > 20) per.push(bytes); // past the first minutes' new lengths; a collection loses its count
    }
    per.sort((a, b) => a - b);
    // 8 rows of 160 characters are some 10,400 bytes; the pane list and the memos' copies added some 2,700 more.
    expect(per[per.length >> 1]).toBeLessThanOrEqual(12_000);
    source.stop();
  });

  it('is cell for cell what a full frame draws, whatever the elapsed time, width, focus, scrolling, hidden panels and colour', () => {
    const next = random(7);
    let quick = 0;
    let prev: CellRow[] = [];
    for (let trial = 0; trial < 24; trial++) {
      const cols = 30 + Math.floor(next() * 170);
      const { source, board } = rig(cols, 20 + Math.floor(next() * 30), next() < 0.5);
      let t = T0;
      const ids: number[] = [];
      for (let k = 1 + Math.floor(next() * 8); k > 0; k--) {
        const label = Array.from({ length: 1 + Math.floor(next() * 3) }, () => LABEL_PARTS[Math.floor(next() * LABEL_PARTS.length)]).join(' ');
        ids.push(board.getState().open({ label }, t));
      }
      board.getState().emit(ids[0]!, { type: 'text', text: 'line\n'.repeat(200) }, t);
      board.getState().flush(t);
      for (let step = 0; step < 60; step++) {
        const r = next();
        if (r < 0.04) board.getState().focusMove('next');
        else if (r < 0.06) board.getState().resize(30 + Math.floor(next() * 170), 20 + Math.floor(next() * 30));
        else if (r < 0.08) board.getState().scrollLines(-1 - Math.floor(next() * 5));
        else if (r < 0.09) board.getState().scroll(0);
        else if (r < 0.1) board.getState().zoomToggle();
        else t += r < 0.97 ? 1000 : Math.floor(next() * 4_000_000);
        board.getState().tick(t);
        const heads = source.headerOverlays(ids)!.map((o) => o.rows[0]!);
        if (heads.some((row, k) => rewrote(row, prev[k]))) quick++;
        prev = heads;
        expect(heads).toEqual(fullHeaders(board));
      }
      source.stop();
      prev = [];
    }
    expect(quick).toBeGreaterThan(24 * 60 * 0.3); // most seconds took the rewrite, so the comparison above tested it
  });
});
