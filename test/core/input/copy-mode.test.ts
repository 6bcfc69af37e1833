import { describe, expect, it } from 'vitest';
import { copyKey, copyScrollback, copyStart, selectionOn, type CopyBuffer, type CopyState } from '../../../src/core/input/copy-mode.js';

/** A buffer of `lines` shown `rows` high and 20 wide; `wrapped` lists the lines that go on in the next. */
const buffer = (lines: string[], rows = 3, wrapped: number[] = []): CopyBuffer => ({
  length: lines.length,
  rows,
  cols: 20,
  line: (y) => lines[y] ?? '',
  wrapped: (y) => wrapped.includes(y),
});

const LINES = ['alpha one', 'beta two', 'gamma three', 'delta four', 'Alpha five', 'zeta six'];

/** Plays keys from a fresh start at the bottom, returning the last step's state and everything copied. */
function play(buf: CopyBuffer, keys: string[], start?: CopyState): { state: CopyState | null; copied: string[] } {
  let state: CopyState | null = start ?? copyStart(buf, 0);
  const copied: string[] = [];
  for (const key of keys) {
    if (state === null) break;
    const step = copyKey(state, key, buf);
    state = step.state;
    if (step.copied !== undefined) copied.push(step.copied);
  }
  return { state, copied };
}

describe('copy mode', () => {
  it('starts at the bottom of the view, or as far back as the pane was scrolled', () => {
    const buf = buffer(LINES);
    expect(copyStart(buf, 0)).toMatchObject({ top: 3, cursor: { x: 0, y: 5 } });
    const back = copyStart(buf, 2);
    expect([back.top, back.cursor.y, copyScrollback(back, buf)]).toEqual([1, 3, 2]);
    expect(copyStart(buf, 99).top).toBe(0);
  });

  it.each<[string, string[], { x: number; y: number }, number]>([
    ['up twice, to the view\'s top: it scrolls a line', ['k', '\x1b[A'], { x: 0, y: 3 }, 2],
    ['up to the view\'s top scrolls it, a line kept above', ['k', 'k', 'k'], { x: 0, y: 2 }, 1],
    ['down at the bottom stays', ['j'], { x: 0, y: 5 }, 3],
    ['right and left', ['l', 'l', '\x1b[C', 'h'], { x: 2, y: 5 }, 3],
    ['g to the oldest line', ['g'], { x: 0, y: 0 }, 0],
    ['G back to the newest', ['g', 'G'], { x: 0, y: 5 }, 3],
    ['$ to the line end', ['$'], { x: 7, y: 5 }, 3],
    ['PageUp a page (rows - 1)', ['\x1b[5~'], { x: 0, y: 3 }, 1],
    ['C-y moves the view a line, the cursor kept in it', ['\x19', '\x19'], { x: 0, y: 3 }, 1],
    ['C-e back down', ['\x19', '\x05'], { x: 0, y: 4 }, 3],
    ['PageUp then PageDown', ['\x1b[5~', '\x1b[6~'], { x: 0, y: 5 }, 3],
  ])('moves: %s', (_name, keys, cursor, top) => {
    const { state } = play(buffer(LINES), keys);
    expect(state?.cursor).toEqual(cursor);
    expect(state?.top).toBe(top);
  });

  it.each<[string, string[], { x: number; y: number } | null, string]>([
    ['/ searches back on Enter', ['/', 'd', 'e', 'l', '\r'], { x: 0, y: 3 }, ''],
    ['a search finds the nearest match back', ['/', 'e', '\r'], { x: 9, y: 4 }, ''],
    ['n repeats back', ['/', 'e', '\r', 'n'], { x: 1, y: 3 }, ''],
    ['n on the only match stays there', ['/', 't', 'w', 'o', '\r', 'n'], { x: 5, y: 1 }, ''],
    ['lower case ignores case: alpha finds Alpha first', ['/', 'a', 'l', 'p', 'h', 'a', '\r'], { x: 0, y: 4 }, ''],
    ['then alpha one, before it', ['/', 'a', 'l', 'p', 'h', 'a', '\r', 'n'], { x: 0, y: 0 }, ''],
    ['upper case is exact', ['/', 'A', 'l', 'p', 'h', 'a', '\r', 'n'], { x: 0, y: 4 }, ''],
    ['the search wraps round to the newest', ['/', 'z', 'e', 't', 'a', '\r'], { x: 0, y: 5 }, ''],
    ['N searches forward', ['g', '/', 'f', 'o', 'u', 'r', '\r', 'g', 'N'], { x: 6, y: 3 }, ''],
    ['Backspace edits the search', ['/', 'x', 'x', '\x7f', '\x7f', 'g', 'a', 'm', '\r'], { x: 0, y: 2 }, ''],
    ['not found says so and stays', ['/', 'o', 'm', 'e', 'g', 'a', '\r'], { x: 0, y: 5 }, 'not found: omega'],
  ])('searches: %s', (_name, keys, cursor, message) => {
    const { state } = play(buffer(LINES), keys);
    expect(state?.cursor).toEqual(cursor);
    expect(state?.message).toBe(message);
    expect(state?.search).toBeNull();
  });

  it('scrolls the view to a match far back', () => {
    const { state } = play(buffer(LINES), ['/', 'b', 'e', 't', 'a', '\r']);
    expect(state?.top).toBe(0);
    expect(copyScrollback(state!, buffer(LINES))).toBe(3);
  });

  it('copies the selection from the mark to the cursor, both included, across lines, on Enter or y', () => {
    expect(play(buffer(LINES), ['k', 'l', 'l', 'v', 'j', 'l', 'l', 'l', '\r']).copied).toEqual(['pha five\nzeta s']);
    expect(play(buffer(LINES), ['0', ' ', '$', 'y']).copied).toEqual(['zeta six']);
    expect(play(buffer(LINES), ['$', 'v', '0', 'y']).copied).toEqual(['zeta six']); // backwards too
  });

  it('joins a soft-wrapped line without a newline', () => {
    const buf = buffer(['a long li', 'ne wrapped', 'next'], 3, [0]);
    expect(play(buf, ['g', 'v', 'j', 'j', '$', 'y'], copyStart(buf, 0)).copied).toEqual(['a long line wrapped\nnext']);
  });

  it('leaves on q, on Enter without a selection, and on Esc once the selection is cleared', () => {
    expect(play(buffer(LINES), ['q']).state).toBeNull();
    expect(play(buffer(LINES), ['\r']).state).toBeNull();
    expect(play(buffer(LINES), ['v', '\x1b']).state?.mark).toBeNull();
    expect(play(buffer(LINES), ['v', '\x1b', '\x1b']).state).toBeNull();
    expect(play(buffer(LINES), ['/', 'a', '\x1b']).state).toMatchObject({ search: null });
  });

  it('tells which columns of a line are selected', () => {
    const { state } = play(buffer(LINES), ['k', 'l', 'v', 'j', 'l']);
    expect([3, 4, 5].map((y) => selectionOn(state!, y, 20))).toEqual([null, [1, 19], [0, 2]]);
  });
});
