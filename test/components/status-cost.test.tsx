/** The cockpit's own cost on the status line: beside the counts when there is room, the first thing dropped when there is not. */
import stripAnsi from 'strip-ansi';
import { describe, expect, it } from 'vitest';
import { statusRow, type StatusFacts } from '../../components/StatusLine.js';
import { paletteOf } from '../../src/core/panel/colors.js';

const facts: StatusFacts = { name: 'tai night', counts: new Map(), hidden: 0, prefix: '\x1d', pending: false, cost: 'cpu 2% · 84 MB' };
const row = (cols: number): string => stripAnsi(statusRow(facts, cols, paletteOf(true)));

describe("the status line's cost", () => {
  it("follows the counts when the row has room", () => {
    expect(row(80)).toMatch(/^ tai night │ 0 running │ tai cpu 2% · 84 MB +C-\] \? help $/);
  });

  it('goes first when the row is short, before the name', () => {
    expect(row(40)).toMatch(/^ tai night │ 0 running +C-\] \? help $/);
    expect(row(25)).toMatch(/^ 0 running +C-\] \? help $/);
    expect(row(25)).toHaveLength(25);
  });
});
