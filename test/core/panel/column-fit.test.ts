import { describe, expect, it } from 'vitest';
import { columnCols, COLUMN_MIN_COLS, windowForColumn } from '../../../src/core/panel/column-fit.js';

describe('the agent column on its own', () => {
  it('finds a window whose column is exactly the asked width, for every width', () => {
    for (let cols = COLUMN_MIN_COLS; cols <= 200; cols++) expect(columnCols(windowForColumn(cols))).toBe(cols);
  });

  it('gives a 53-column column the 120-column window of docs/spec.md, "Layout"', () => {
    expect(windowForColumn(53)).toBe(118);
    expect(columnCols(120)).toBe(53);
  });

  it('widens a column narrower than the layout allows to its minimum', () => {
    expect(columnCols(windowForColumn(5))).toBe(COLUMN_MIN_COLS);
  });
});
