import { describe, expect, it } from 'vitest';
import {
  drawn,
  fits,
  focusOrder,
  layout,
  neighbour,
  paneAt,
  REASON_NO_SPACE,
  REASON_TOO_MANY,
  REASON_TOO_NARROW,
  rectOf,
  shares,
  type Layout,
  type LayoutInput,
} from '../../../src/core/panel/layout.js';
import {
  MPLEX_VPANE_MIN_COLS,
  MPLEX_VPANE_MIN_ROWS,
  MPLEX_VPANE_MIN_WINDOW_COLS,
  ORCH_PANELS_MAX,
} from '../../../src/core/policy.js';

/**
 * Paints what a layout draws: 'M' the main pane, a panel's id (mod 10) its
 * cells, '│' and '─' the separators, ' ' a cell nobody paints and '#' a cell
 * painted twice, so gaps and overlaps show in the picture.
 */
function picture(l: Layout, cols: number, rows: number): string[] {
  const grid = Array.from({ length: rows }, () => Array.from({ length: cols }, () => ' '));
  const paint = (x: number, y: number, ch: string): void => {
    const row = grid[y];
    if (row === undefined || x < 0 || x >= cols) throw new Error(`cell ${x},${y} is outside ${cols}x${rows}`);
    row[x] = row[x] === ' ' ? ch : '#';
  };
  const { panes, separators } = drawn(l);
  for (const { id, rect } of panes) {
    const ch = id === 'main' ? 'M' : String(id % 10);
    for (let y = rect.y; y < rect.y + rect.rows; y++) for (let x = rect.x; x < rect.x + rect.cols; x++) paint(x, y, ch);
  }
  const v = separators.vertical;
  if (v) for (let y = v.y; y < v.y + v.rows; y++) paint(v.x, y, '│');
  for (const h of separators.horizontal) for (let x = h.x; x < h.x + h.cols; x++) paint(x, h.y, '─');
  return grid.map((row) => row.join(''));
}

function draw(input: LayoutInput): string[] {
  return picture(layout(input), input.cols, input.rows);
}

describe('layout pictures', () => {
  const cases: { name: string; input: LayoutInput; expected: string[]; hidden?: Layout['hidden'] }[] = [
    {
      name: 'with no panels the main pane takes the whole window',
      input: { cols: 12, rows: 3, panels: [] },
      expected: ['MMMMMMMMMMMM', 'MMMMMMMMMMMM', 'MMMMMMMMMMMM'],
    },
    {
      name: 'one panel takes the right column at full height, squeezed to 20 columns at 41',
      input: { cols: 41, rows: 6, panels: [1] },
      expected: [
        'MMMMMMMMMMMMMMMMMMMM│11111111111111111111',
        'MMMMMMMMMMMMMMMMMMMM│11111111111111111111',
        'MMMMMMMMMMMMMMMMMMMM│11111111111111111111',
        'MMMMMMMMMMMMMMMMMMMM│11111111111111111111',
        'MMMMMMMMMMMMMMMMMMMM│11111111111111111111',
        'MMMMMMMMMMMMMMMMMMMM│11111111111111111111',
      ],
    },
    {
      name: 'the main pane is 55 percent wide when the right column has room',
      input: { cols: 60, rows: 6, panels: [1, 2] },
      expected: [
        'MMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMM│11111111111111111111111111',
        'MMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMM│11111111111111111111111111',
        'MMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMM│11111111111111111111111111',
        'MMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMM│11111111111111111111111111',
        'MMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMM│11111111111111111111111111',
        'MMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMM│11111111111111111111111111',
      ],
      hidden: [{ id: 2, reason: REASON_NO_SPACE }],
    },
    {
      name: 'two panels share the rows around one separator, the first getting the remainder',
      input: { cols: 41, rows: 12, panels: [1, 2] },
      expected: [
        'MMMMMMMMMMMMMMMMMMMM│11111111111111111111',
        'MMMMMMMMMMMMMMMMMMMM│11111111111111111111',
        'MMMMMMMMMMMMMMMMMMMM│11111111111111111111',
        'MMMMMMMMMMMMMMMMMMMM│11111111111111111111',
        'MMMMMMMMMMMMMMMMMMMM│11111111111111111111',
        'MMMMMMMMMMMMMMMMMMMM│11111111111111111111',
        'MMMMMMMMMMMMMMMMMMMM│────────────────────',
        'MMMMMMMMMMMMMMMMMMMM│22222222222222222222',
        'MMMMMMMMMMMMMMMMMMMM│22222222222222222222',
        'MMMMMMMMMMMMMMMMMMMM│22222222222222222222',
        'MMMMMMMMMMMMMMMMMMMM│22222222222222222222',
        'MMMMMMMMMMMMMMMMMMMM│22222222222222222222',
      ],
    },
    {
      name: 'three panels stack in creation order whatever their ids',
      input: { cols: 41, rows: 18, panels: [4, 7, 9] },
      expected: [
        'MMMMMMMMMMMMMMMMMMMM│44444444444444444444',
        'MMMMMMMMMMMMMMMMMMMM│44444444444444444444',
        'MMMMMMMMMMMMMMMMMMMM│44444444444444444444',
        'MMMMMMMMMMMMMMMMMMMM│44444444444444444444',
        'MMMMMMMMMMMMMMMMMMMM│44444444444444444444',
        'MMMMMMMMMMMMMMMMMMMM│44444444444444444444',
        'MMMMMMMMMMMMMMMMMMMM│────────────────────',
        'MMMMMMMMMMMMMMMMMMMM│77777777777777777777',
        'MMMMMMMMMMMMMMMMMMMM│77777777777777777777',
        'MMMMMMMMMMMMMMMMMMMM│77777777777777777777',
        'MMMMMMMMMMMMMMMMMMMM│77777777777777777777',
        'MMMMMMMMMMMMMMMMMMMM│77777777777777777777',
        'MMMMMMMMMMMMMMMMMMMM│────────────────────',
        'MMMMMMMMMMMMMMMMMMMM│99999999999999999999',
        'MMMMMMMMMMMMMMMMMMMM│99999999999999999999',
        'MMMMMMMMMMMMMMMMMMMM│99999999999999999999',
        'MMMMMMMMMMMMMMMMMMMM│99999999999999999999',
        'MMMMMMMMMMMMMMMMMMMM│99999999999999999999',
      ],
    },
    {
      name: 'a window under 41 columns shows no panel and says why',
      input: { cols: 40, rows: 3, panels: [1, 2] },
      expected: [
        'MMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMM',
        'MMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMM',
        'MMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMM',
      ],
      hidden: [
        { id: 1, reason: REASON_TOO_NARROW },
        { id: 2, reason: REASON_TOO_NARROW },
      ],
    },
    {
      name: 'a zoomed panel is drawn over the whole window and nothing else is',
      input: { cols: 41, rows: 12, panels: [1, 2], zoom: 2 },
      expected: Array.from({ length: 12 }, () => '2'.repeat(41)),
    },
    {
      name: 'a zoomed main pane is drawn over the whole window without separators',
      input: { cols: 41, rows: 6, panels: [1], zoom: 'main' },
      expected: Array.from({ length: 6 }, () => 'M'.repeat(41)),
    },
  ];

  for (const { name, input, expected, hidden } of cases) {
    it(name, () => {
      expect(draw(input)).toEqual(expected);
      expect(layout(input).hidden).toEqual(hidden ?? []);
    });
  }
});

describe('section 10, measured on a 120 x 40 window', () => {
  it('gives one agent a 53 x 40 panel at column 67 beside a 66 x 40 main pane', () => {
    const l = layout({ cols: 120, rows: 40, panels: [1] });
    expect(l.main).toEqual({ x: 0, y: 0, cols: 66, rows: 40 });
    expect(l.panels).toEqual([{ id: 1, rect: { x: 67, y: 0, cols: 53, rows: 40 } }]);
    expect(l.separators).toEqual({ vertical: { x: 66, y: 0, rows: 40 }, horizontal: [] });
    expect(l.hidden).toEqual([]);
  });

  it('stacks three agents 13, 13 and 12 rows high with separators at rows 13 and 27', () => {
    const l = layout({ cols: 120, rows: 40, panels: [1, 2, 3] });
    expect(l.panels.map((p) => p.rect)).toEqual([
      { x: 67, y: 0, cols: 53, rows: 13 },
      { x: 67, y: 14, cols: 53, rows: 13 },
      { x: 67, y: 28, cols: 53, rows: 12 },
    ]);
    expect(l.separators.horizontal).toEqual([
      { x: 67, y: 13, cols: 53 },
      { x: 67, y: 27, cols: 53 },
    ]);
  });

  it('fits six agents and gives the seventh no panel, with the spec\'s reason', () => {
    const l = layout({ cols: 120, rows: 40, panels: [1, 2, 3, 4, 5, 6, 7] });
    expect(l.panels.map((p) => p.id)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(l.panels.map((p) => p.rect.rows)).toEqual([6, 6, 6, 6, 6, 5]);
    expect(l.hidden).toEqual([{ id: 7, reason: 'no space for another feed pane' }]);
    expect(fits(120, 40, 6)).toBeNull();
    expect(fits(120, 40, 7)).toBe('no space for another feed pane');
  });
});

describe('width rules', () => {
  it('shows a panel at exactly 41 columns and none at 40', () => {
    expect(MPLEX_VPANE_MIN_WINDOW_COLS).toBe(41);
    const at41 = layout({ cols: 41, rows: 40, panels: [1] });
    expect(at41.main.cols).toBe(20);
    expect(at41.panels).toEqual([{ id: 1, rect: { x: 21, y: 0, cols: 20, rows: 40 } }]);
    const at40 = layout({ cols: 40, rows: 40, panels: [1] });
    expect(at40.main).toEqual({ x: 0, y: 0, cols: 40, rows: 40 });
    expect(at40.panels).toEqual([]);
    expect(at40.hidden).toEqual([{ id: 1, reason: 'window too narrow for a feed pane' }]);
    expect(at40.separators).toEqual({ horizontal: [] });
  });

  it('takes width from the main pane so the right column keeps 20 columns at 44', () => {
    // 55 % of 44 is 24, which would leave the right column 19 columns.
    const l = layout({ cols: 44, rows: 24, panels: [1] });
    expect(l.main.cols).toBe(23);
    expect(l.panels[0]?.rect).toEqual({ x: 24, y: 0, cols: MPLEX_VPANE_MIN_COLS, rows: 24 });
  });

  it('uses the main percent the opener asked for', () => {
    const l = layout({ cols: 100, rows: 24, panels: [1], mainPercent: 70 });
    expect(l.main.cols).toBe(70);
    expect(l.panels[0]?.rect).toEqual({ x: 71, y: 0, cols: 29, rows: 24 });
  });
});

describe('fits', () => {
  const table: [cols: number, rows: number, n: number, expected: string | null][] = [
    [120, 40, 0, null],
    [10, 1, 0, null],
    [120, 40, 1, null],
    [120, 5, 1, REASON_NO_SPACE],
    [120, 6, 1, null],
    [120, 12, 2, null],
    [120, 11, 2, REASON_NO_SPACE],
    [40, 90, 1, REASON_TOO_NARROW],
    [41, 90, 1, null],
    [300, 90, ORCH_PANELS_MAX, null],
    [300, 90, ORCH_PANELS_MAX + 1, 'too many feed panes (limit 8)'],
    [40, 90, ORCH_PANELS_MAX + 1, REASON_TOO_NARROW],
  ];
  for (const [cols, rows, n, expected] of table) {
    it(`says ${expected === null ? 'yes' : `"${expected}"`} for ${n} panels in ${cols} x ${rows}`, () => {
      expect(fits(cols, rows, n)).toBe(expected);
    });
  }

  it('agrees with the layout about how many panels are shown', () => {
    for (const [cols, rows] of [[120, 40], [80, 24], [41, 6], [300, 90], [50, 47]] as const) {
      const l = layout({ cols, rows, panels: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] });
      const n = l.panels.length;
      expect(fits(cols, rows, n)).toBeNull();
      expect(fits(cols, rows, n + 1)).toBe(l.hidden[0]?.reason);
    }
  });
});

describe('the panel cap', () => {
  it('hides panels past ORCH_PANELS_MAX from the newest even when rows remain', () => {
    const l = layout({ cols: 300, rows: 90, panels: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] });
    expect(l.panels.map((p) => p.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(l.hidden).toEqual([
      { id: 9, reason: REASON_TOO_MANY },
      { id: 10, reason: REASON_TOO_MANY },
    ]);
  });
});

describe('shares', () => {
  it('gives the first heights the remainder one each', () => {
    expect(shares(38, 3)).toEqual([13, 13, 12]);
    expect(shares(35, 6)).toEqual([6, 6, 6, 6, 6, 5]);
    expect(shares(7, 0)).toEqual([]);
  });
});

describe('degenerate sizes', () => {
  const sizes: [number, number][] = [
    [1, 1],
    [80, 0],
    [0, 0],
    [0, 24],
    [80, 24],
    [300, 90],
    [41, 6],
    [41, 5],
    [2, 300],
    [-5, -1],
    [Number.NaN, Number.POSITIVE_INFINITY],
    [80.7, 24.9],
  ];
  for (const [cols, rows] of sizes) {
    it(`never throws on ${cols} x ${rows} and paints every cell exactly once`, () => {
      for (let n = 0; n <= ORCH_PANELS_MAX + 2; n++) {
        const panels = Array.from({ length: n }, (_, i) => i + 1);
        const l = layout({ cols, rows, panels });
        expect(l.panels.length + l.hidden.length).toBe(n);
        const w = l.main.cols + (l.panels.length > 0 ? 1 + (l.panels[0]?.rect.cols ?? 0) : 0);
        for (const line of picture(l, w, l.main.rows)) expect(line).toMatch(/^[^ #]*$/);
        for (const p of l.panels) {
          expect(p.rect.cols).toBeGreaterThanOrEqual(MPLEX_VPANE_MIN_COLS);
          // The separator row above a panel is part of its MPLEX_VPANE_MIN_ROWS share.
          expect(p.rect.rows).toBeGreaterThanOrEqual(MPLEX_VPANE_MIN_ROWS - 1);
        }
      }
    });
  }

  it('keeps a 1 x 1 window as one main cell', () => {
    const l = layout({ cols: 1, rows: 1, panels: [1] });
    expect(l.main).toEqual({ x: 0, y: 0, cols: 1, rows: 1 });
    expect(l.hidden).toEqual([{ id: 1, reason: REASON_TOO_NARROW }]);
  });

  it('gives every panel its minimum and no more room than the window on 80 x 24', () => {
    const l = layout({ cols: 80, rows: 24, panels: [1, 2, 3, 4, 5] });
    expect(l.main).toEqual({ x: 0, y: 0, cols: 44, rows: 24 });
    expect(l.panels.map((p) => p.rect.rows)).toEqual([6, 5, 5, 5]);
    expect(l.hidden).toEqual([{ id: 5, reason: REASON_NO_SPACE }]);
  });
});

describe('zoom', () => {
  it('keeps the unzoomed geometry so every screen keeps its size', () => {
    const plain = layout({ cols: 120, rows: 40, panels: [1, 2, 3] });
    const zoomed = layout({ cols: 120, rows: 40, panels: [1, 2, 3], zoom: 2 });
    expect(zoomed.main).toEqual(plain.main);
    expect(zoomed.panels).toEqual(plain.panels);
    expect(zoomed.hidden).toEqual([]);
    expect(zoomed.zoomed).toEqual({ id: 2, rect: { x: 0, y: 0, cols: 120, rows: 40 } });
    expect(plain.zoomed).toBeUndefined();
  });

  it('zooms the main pane even when no panel is shown', () => {
    const l = layout({ cols: 30, rows: 10, panels: [1], zoom: 'main' });
    expect(l.zoomed).toEqual({ id: 'main', rect: { x: 0, y: 0, cols: 30, rows: 10 } });
  });

  it('zooms a hidden panel over the window (the agent list shows it so) and ignores an unknown one', () => {
    expect(layout({ cols: 120, rows: 40, panels: [1, 2, 3, 4, 5, 6, 7], zoom: 7 }).zoomed).toEqual({ id: 7, rect: { x: 0, y: 0, cols: 120, rows: 40 } });
    expect(layout({ cols: 30, rows: 10, panels: [1], zoom: 1, statusLine: true }).zoomed).toEqual({ id: 1, rect: { x: 0, y: 0, cols: 30, rows: 9 } });
    expect(layout({ cols: 120, rows: 40, panels: [1], zoom: 42 }).zoomed).toBeUndefined();
  });
});

describe('the status line', () => {
  it('keeps the last row: the panes share the rows above it', () => {
    const input = { cols: 50, rows: 13, panels: [1, 2], statusLine: true };
    expect(draw(input)).toEqual([
      'MMMMMMMMMMMMMMMMMMMMMMMMMMM│1111111111111111111111',
      'MMMMMMMMMMMMMMMMMMMMMMMMMMM│1111111111111111111111',
      'MMMMMMMMMMMMMMMMMMMMMMMMMMM│1111111111111111111111',
      'MMMMMMMMMMMMMMMMMMMMMMMMMMM│1111111111111111111111',
      'MMMMMMMMMMMMMMMMMMMMMMMMMMM│1111111111111111111111',
      'MMMMMMMMMMMMMMMMMMMMMMMMMMM│1111111111111111111111',
      'MMMMMMMMMMMMMMMMMMMMMMMMMMM│──────────────────────',
      'MMMMMMMMMMMMMMMMMMMMMMMMMMM│2222222222222222222222',
      'MMMMMMMMMMMMMMMMMMMMMMMMMMM│2222222222222222222222',
      'MMMMMMMMMMMMMMMMMMMMMMMMMMM│2222222222222222222222',
      'MMMMMMMMMMMMMMMMMMMMMMMMMMM│2222222222222222222222',
      'MMMMMMMMMMMMMMMMMMMMMMMMMMM│2222222222222222222222',
      '                                                  ',
    ]);
    expect(layout(input).status).toEqual({ x: 0, y: 12, cols: 50, rows: 1 });
  });

  it('stacks three agents in 40 rows 13, 12 and 12 high: the original measured 40 rows for the panes, they get 39', () => {
    const l = layout({ cols: 120, rows: 40, panels: [1, 2, 3], statusLine: true });
    expect(l.panels.map((p) => [p.rect.y, p.rect.rows])).toEqual([
      [0, 13],
      [14, 12],
      [27, 12],
    ]);
    expect(l.main).toEqual({ x: 0, y: 0, cols: 66, rows: 39 });
    expect(layout({ cols: 120, rows: 40, panels: [1, 2, 3, 4, 5, 6, 7], statusLine: true }).panels).toHaveLength(6);
  });

  it('has no status line in a window of one row, and none unless asked (a host\'s box)', () => {
    expect(layout({ cols: 80, rows: 1, panels: [], statusLine: true }).status).toBeUndefined();
    expect(layout({ cols: 80, rows: 24, panels: [] }).status).toBeUndefined();
    expect(layout({ cols: 80, rows: 24, panels: [], statusLine: true }).main.rows).toBe(23);
  });
});

describe('focus', () => {
  const three = layout({ cols: 120, rows: 40, panels: [5, 6, 7] });

  it('cycles through the main pane and then the shown panels top to bottom', () => {
    expect(focusOrder(three)).toEqual(['main', 5, 6, 7]);
    expect(focusOrder(layout({ cols: 120, rows: 12, panels: [1, 2, 3] }))).toEqual(['main', 1, 2]);
  });

  it('moves right from the main pane to the panel beside its centre', () => {
    expect(neighbour(three, 'main', 'right')).toBe(6);
    const two = layout({ cols: 120, rows: 40, panels: [1, 2] });
    // Heights 20 and 19: the main pane's centre (row 20) touches the first panel and misses the second by one.
    expect(neighbour(two, 'main', 'right')).toBe(1);
  });

  it('moves left from any panel to the main pane', () => {
    for (const id of [5, 6, 7]) expect(neighbour(three, id, 'left')).toBe('main');
  });

  it('moves up and down the column across the separators', () => {
    expect(neighbour(three, 5, 'down')).toBe(6);
    expect(neighbour(three, 6, 'down')).toBe(7);
    expect(neighbour(three, 7, 'up')).toBe(6);
    expect(neighbour(three, 6, 'up')).toBe(5);
  });

  it('finds nothing past the window edges or for a pane without a place', () => {
    expect(neighbour(three, 5, 'up')).toBeNull();
    expect(neighbour(three, 7, 'down')).toBeNull();
    expect(neighbour(three, 6, 'right')).toBeNull();
    expect(neighbour(three, 'main', 'left')).toBeNull();
    expect(neighbour(three, 'main', 'up')).toBeNull();
    expect(neighbour(three, 'main', 'down')).toBeNull();
    expect(neighbour(three, 99, 'left')).toBeNull();
    expect(neighbour(layout({ cols: 30, rows: 10, panels: [1] }), 'main', 'right')).toBeNull();
  });

  it('looks panes up by id', () => {
    expect(rectOf(three, 7)).toEqual({ x: 67, y: 28, cols: 53, rows: 12 });
    expect(rectOf(three, 'main')).toEqual(three.main);
    expect(rectOf(three, 8)).toBeUndefined();
  });
});

describe('paneAt', () => {
  const l = layout({ cols: 120, rows: 40, panels: [1, 2] });
  it.each([
    [0, 0, 'main', 0],
    [65, 39, 'main', 0],
    [66, 10, undefined, undefined], // the vertical separator
    [67, 0, 1, 1], // a panel's header: its screen starts a row lower
    [119, 19, 1, 1],
    [80, 20, undefined, undefined], // the separator row between the two panels
    [80, 21, 2, 22],
    [120, 0, undefined, undefined],
  ])('at (%i, %i) is %s', (x, y, id, screenTop) => {
    const at = paneAt(l, x, y);
    expect(at?.id).toBe(id);
    expect(at?.screenTop).toBe(screenTop);
  });

  it('finds only the zoomed pane, over the whole window', () => {
    const z = layout({ cols: 120, rows: 40, panels: [1], zoom: 1 });
    expect(paneAt(z, 5, 5)).toEqual({ id: 1, rect: { x: 0, y: 0, cols: 120, rows: 40 }, screenTop: 1 });
  });
});
