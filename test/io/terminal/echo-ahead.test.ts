import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { lineToCells } from '../../../src/io/terminal/screen-rows.js';
import { MAIN_SCROLLBACK, XtermScreen } from '../../../src/io/terminal/screen.js';
import { seeded } from '../../helpers/seeded.js';

// The echo is read from xterm.js's internals (xterm-internals.ts): on, whatever the caller's TAI_INTERNALS.
beforeAll(() => vi.stubEnv('TAI_INTERNALS', '1'));
afterAll(() => vi.unstubAllEnvs());

const echoAhead = (s: XtermScreen, data: string) => s.echoOf(data);

/** A main screen (parsed as it arrives, as the cockpit's is). */
const mainScreen = (cols: number, rows: number) => new XtermScreen(cols, rows, MAIN_SCROLLBACK, true);

const written = (s: XtermScreen, data: string) => new Promise<void>((resolve) => s.write(data, resolve));

/** The cells of visible row `y` as lineToCells reads them: what every frame draws. */
const rowCells = (s: XtermScreen, y: number) => {
  const buf = s.term.buffer.active;
  return lineToCells(buf.getLine(buf.baseY + y), s.term.cols, buf.getNullCell());
};

describe('XtermScreen.echoOf (the echo ahead)', () => {
  it('knows a printed key before the parse: the cell, its pen, and the cursor after it', async () => {
    const s = mainScreen(20, 3);
    await written(s, '$ \x1b[1;32m');
    expect(echoAhead(s, 'ab')).toEqual({ x: 2, y: 0, chars: 'ab', style: '1;32' });
    await written(s, 'ab');
    expect(rowCells(s, 0).chars.slice(2, 4)).toEqual(['a', 'b']);
    expect(rowCells(s, 0).styles.slice(2, 4)).toEqual(['1;32', '1;32']);
    expect(s.term.buffer.active.cursorX).toBe(4);
  });

  it('knows nothing of what print would do more with: controls, non-ASCII, the edge, insert mode, DEC graphics, a begun sequence, wide neighbours', async () => {
    const s = mainScreen(10, 3);
    expect(echoAhead(s, '')).toBeUndefined();
    expect(echoAhead(s, 'a\r\n')).toBeUndefined();
    expect(echoAhead(s, 'é')).toBeUndefined();
    expect(echoAhead(s, '0123456789')).toBeUndefined(); // reaches the last column: a wrap would be pending
    expect(echoAhead(s, '012345678')).toEqual({ x: 0, y: 0, chars: '012345678', style: '' });
    await written(s, '\x1b[4h');
    expect(echoAhead(s, 'a')).toBeUndefined();
    await written(s, '\x1b[4l\x1b(0');
    expect(echoAhead(s, 'q')).toBeUndefined();
    await written(s, '\x1b(B\x1b[');
    expect(echoAhead(s, '1')).toBeUndefined(); // a CSI begun: '1' is its parameter
    await written(s, 'm\x1b[H世界\x1b[1;2H');
    expect(echoAhead(s, 'a')).toBeUndefined(); // on the right half of 世
    await written(s, '\x1b[1;1H');
    expect(echoAhead(s, 'a')).toBeUndefined(); // on the left half of 世: its right half would be blanked
    await written(s, '\x1b[1;5H');
    expect(echoAhead(s, 'a')).toEqual({ x: 4, y: 0, chars: 'a', style: '' });
  });

  it('agrees with xterm.js over generated screens and chunks, whenever it knows', async () => {
    const rnd = seeded(17);
    const pick = <T,>(xs: readonly T[]): T => xs[rnd(xs.length)]!;
    const pens = ['\x1b[0m', '\x1b[1m', '\x1b[31;44m', '\x1b[38;5;208m', '\x1b[38;2;1;2;3;7m', '\x1b[3;4;9m', '\x1b[2;5;8m'];
    const bits = ['abc', '世', '😀', 'e\u0301', ' ', 'xyz', '\t', '\x1b[K'];
    let known = 0;
    for (let round = 0; round < 300; round++) {
      const cols = 6 + rnd(20);
      const rows = 2 + rnd(4);
      const s = mainScreen(cols, rows);
      let fill = '';
      for (let n = rnd(12); n > 0; n--) fill += pick(pens) + pick(bits) + (rnd(5) === 0 ? '\r\n' : '');
      const x = rnd(cols + 1);
      const y = rnd(rows);
      await written(s, `${fill}\x1b[${y + 1};${x + 1}H${pick(pens)}${rnd(8) === 0 ? '\x1b[4h' : ''}${rnd(8) === 0 ? '\x1b(0' : ''}`);
      const chunk = Array.from({ length: 1 + rnd(4) }, () => String.fromCharCode(0x20 + rnd(95))).join('');
      const ahead = echoAhead(s, chunk);
      const cy = s.term.buffer.active.cursorY;
      const before = rowCells(s, cy);
      await written(s, chunk);
      if (ahead === undefined) continue;
      known++;
      const after = rowCells(s, ahead.y);
      expect(ahead.y).toBe(cy);
      for (let i = 0; i < cols; i++) {
        const inside = i >= ahead.x && i < ahead.x + ahead.chars.length;
        expect([after.chars[i], after.styles[i]]).toEqual(inside ? [ahead.chars[i - ahead.x], ahead.style] : [before.chars[i], before.styles[i]]);
      }
      expect([s.term.buffer.active.cursorX, s.term.buffer.active.cursorY]).toEqual([ahead.x + ahead.chars.length, ahead.y]);
    }
    expect(known).toBeGreaterThan(100); // the test sees the prediction made, not only refused
  });
});
