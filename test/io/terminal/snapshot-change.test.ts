import { describe, expect, it } from 'vitest';
import { XtermScreen } from '../../../src/io/terminal/screen.js';
import { headerChanges, sameChrome } from '../../../src/io/terminal/snapshot-change.js';
import { createBoard } from '../../../store/board.js';

const T0 = 1_000_000;

describe('headerChanges', () => {
  it('names the panels whose header text alone changed, and nothing when anything else did', () => {
    const board = createBoard({ cols: 100, rows: 30 });
    const a = board.getState().open({ label: 'a' }, T0);
    const b = board.getState().open({ label: 'b' }, T0);
    const s0 = board.getState();
    board.getState().tick(T0 + 3_000);
    const s1 = board.getState();
    expect(headerChanges(s1, s0)).toEqual([a, b]);
    expect(headerChanges(s1, s1)).toEqual([]);
    board.getState().helpToggle();
    expect(headerChanges(board.getState(), s1)).toBeUndefined();
    const s2 = board.getState();
    board.getState().cancel(b, 'enough', T0 + 4_000);
    expect(headerChanges(board.getState(), s2)).toEqual([a, b]); // a second on, and "stopping" in its header, its state as it was
    const s3 = board.getState();
    board.getState().finish(b, 'done', 'ok', T0 + 4_000);
    expect(headerChanges(board.getState(), s3)).toBeUndefined(); // a state changed
  });
});

describe('sameChrome', () => {
  it('tells a change of structure from a change of text', () => {
    const board = createBoard({ cols: 80, rows: 24, createScreen: (c, r) => new XtermScreen(c, r) });
    const s = () => board.getState();
    const a = s().open({ label: 'a' }, T0);
    s().open({ label: 'b' }, T0);
    const first = s();
    s().tick(T0 + 3_000);
    expect(s().panels).not.toBe(first.panels);
    expect(sameChrome(s(), first)).toBe(true); // headers only
    s().focusMove('next');
    expect(sameChrome(s(), first)).toBe(false);
    s().focusSet('main');
    expect(sameChrome(s(), first)).toBe(true);
    s().finish(a, 'done', 'ok', T0 + 4_000);
    expect(sameChrome(s(), first)).toBe(false); // a state: the status line counts it
    const done = s();
    s().resize(100, 24);
    expect(sameChrome(s(), done)).toBe(false);
  });
});
