import xterm from '@xterm/headless';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { FLOOD_FLUSH_MS, isPlain } from '../../../src/io/terminal/flood-skip.js';
import { lineToCells } from '../../../src/io/terminal/screen-rows.js';
import { XtermScreen } from '../../../src/io/terminal/screen.js';
import { seeded } from '../../helpers/seeded.js';

// What these tests guard needs xterm.js's scroll region (xterm-internals.ts): on, whatever the caller's TAI_INTERNALS.
beforeAll(() => vi.stubEnv('TAI_INTERNALS', '1'));
afterAll(() => vi.unstubAllEnvs());

const { Terminal } = xterm;
type Term = InstanceType<typeof Terminal>;

const COLS = 40;
const ROWS = 10;
const SCROLLBACK = 300;

/** Every line the buffer keeps (history and screen) as cells, the cursor, and how far it scrolls back. */
function state(t: Term) {
  const buf = t.buffer.active;
  const lines = Array.from({ length: buf.length }, (_, y) => ({ cells: lineToCells(buf.getLine(y), t.cols, buf.getNullCell()), wrapped: buf.getLine(y)?.isWrapped }));
  return { lines, cursor: [buf.cursorX, buf.cursorY], baseY: buf.baseY, type: buf.type };
}

/** `text` into the main screen in chunks of varied sizes (as pty reads come), and into a terminal that parses all of it. */
async function both(text: string, seed = 7) {
  const main = new XtermScreen(COLS, ROWS, SCROLLBACK, true);
  let done = 0;
  let writes = 0;
  const next = seeded(seed);
  for (let i = 0; i < text.length; ) {
    const n = 1 + next(4_096);
    writes++;
    main.write(text.slice(i, i + n), () => done++);
    i += n;
  }
  await main.parsed();
  const reference = new Terminal({ cols: COLS, rows: ROWS, scrollback: SCROLLBACK, allowProposedApi: true });
  await new Promise<void>((r) => reference.write(text, r));
  return { main, reference, callbacks: done === writes };
}

const lines = (from: number, to: number, end = '\r\n') => Array.from({ length: to - from + 1 }, (_, i) => `line ${from + i}${end}`).join('');

describe('FloodSkip', () => {
  // The window that detects a flood is time: frozen, so that a slow machine cannot end a flood halfway.
  afterEach(() => vi.useRealTimers());

  it('tells whether a write would go straight to the screen: not while a flood holds plain text', () => {
    vi.useFakeTimers();
    const main = new XtermScreen(COLS, ROWS, SCROLLBACK, true);
    expect(main.flood?.passes('a')).toBe(true);
    main.write(lines(1, 2 * (SCROLLBACK + 2 * ROWS)));
    expect(main.flood?.passes('a')).toBe(false); // held behind the flood
    expect(main.flood?.passes('\x1b[1ma')).toBe(false); // anything waits for what is held
    vi.advanceTimersByTime(FLOOD_FLUSH_MS);
    expect(main.flood?.passes('\x1b[1ma')).toBe(true); // a sequence is never held
    expect(main.flood?.passes('a')).toBe(false); // the flood's window is still open
    vi.advanceTimersByTime(1_000);
    expect(main.flood?.passes('a')).toBe(false); // as write decides: the next window starts from the flood's count
    main.write('\x1b[0m'); // that window, with no lines in it
    vi.advanceTimersByTime(1_000);
    expect(main.flood?.passes('a')).toBe(true);
  });

  it('leaves the screen and its scrollback as parsing every line would, having parsed only the last of them', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const text = '\x1b[33mstart\x1b[0m\r\n' + lines(1, 20_000) + 'prompt$ ';
    const { main, reference, callbacks } = await both(text);
    expect(main.flood?.cut).toBeGreaterThan(15_000);
    expect(state(main.term)).toEqual(state(reference));
    expect(main.text().at(-1)).toBe('prompt$ ');
    expect(callbacks).toBe(true);
  });

  it('cuts nothing it must not: lines longer than the screen, colours between lines, line feeds without CR, a scroll region, the other screen, reverse wraparound', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const long = Array.from({ length: 6_000 }, (_, i) => `${'x'.repeat(i % 90)}${i}\r\n`).join('');
    const coloured = Array.from({ length: 6_000 }, (_, i) => (i % 997 === 0 ? `\x1b[3${i % 8}m${i}\r\n` : `${i}\r\n`)).join('');
    const staircase = '\x1b[5G' + lines(1, 6_000, '\n');
    const region = '\x1b[2;8r\x1b[8;1H' + lines(1, 6_000) + '\x1b[r';
    const other = '\x1b[?1049h' + lines(1, 6_000) + 'alt';
    const partial = 'abc\r\ndef' + lines(1, 6_000).replace(/\r\n/g, '\n\r') + 'tail';
    // Reverse wraparound (DECSET 45): a backspace at the left edge goes back onto the line above.
    const reverse = '\x1b[?45h' + Array.from({ length: 6_000 }, (_, i) => `${'y'.repeat(i % 70)}\r\n\b\b${i}`).join('') + '\x1b[?45l';
    for (const text of [long, coloured, staircase, region, other, partial, reverse, long + other + '\x1b[?1049l' + long]) {
      const { main, reference, callbacks } = await both(text, text.length);
      expect(state(main.term)).toEqual(state(reference));
      expect(callbacks).toBe(true);
    }
  });

  it('keeps every line that the screen and its scrollback hold when one read brings thousands of lines', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    // The flood is seen, then one read is held and cut: what is left after the cut must still fill the buffer.
    // The last: 300 lines are parsed at once (no flood yet) and leave the cursor at column 3; the cut is at the
    // last CR LF, line feeds alone follow (each line starts where the last ended).
    const cases = [
      ['', lines(1, 400), lines(401, 5_400)],
      ['\x1b[3;5H', lines(1, 400), lines(401, 5_400), 'end'],
      ['x'.repeat(COLS + 5), lines(1, 400), lines(401, 5_400), '\r\nend'],
      [lines(1, 300) + 'abc', lines(301, 1_000) + lines(1_001, 5_400, '\n')],
    ];
    for (const text of cases) {
      const main = new XtermScreen(COLS, ROWS, SCROLLBACK, true);
      for (const t of text) main.write(t);
      await main.parsed();
      const reference = new Terminal({ cols: COLS, rows: ROWS, scrollback: SCROLLBACK, allowProposedApi: true });
      await new Promise<void>((r) => reference.write(text.join(''), r));
      expect(main.flood?.cut).toBeGreaterThan(500);
      expect(state(main.term)).toEqual(state(reference));
    }
  });

  it('cuts no lines while a sequence is begun, even when the text after it looks plain', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const main = new XtermScreen(COLS, ROWS, SCROLLBACK, true);
    // A read that ends inside an SGR, then one that ends it and floods: cutting it would cut the sequence's end.
    const text = [lines(1, 400), '\x1b[3', '1m' + lines(401, 5_400), '\x1b[0m'];
    for (const t of text) main.write(t);
    await main.parsed();
    const reference = new Terminal({ cols: COLS, rows: ROWS, scrollback: SCROLLBACK, allowProposedApi: true });
    await new Promise<void>((r) => reference.write(text.join(''), r));
    expect(state(main.term)).toEqual(state(reference));
  });

  it('writes output at once while nothing floods, and only plain text is ever held', async () => {
    const main = new XtermScreen(COLS, ROWS, SCROLLBACK, true);
    main.write('a few\r\nlines\r\n');
    expect(main.text().slice(0, 2)).toEqual(['a few', 'lines']); // parsed in the write's own turn
    expect(main.flood?.cut).toBe(0);
    expect(isPlain('12345\r\n\tb\bé 世界 😀')).toBe(true);
    for (const c of ['\x1b', '\x07', '\x0e', '\x0f', '\x18', '\x1a', '\x7f', '\x9b', '\x00']) expect(isPlain(`ab${c}cd`)).toBe(false);
  });

  it('draws a flood at least every FLOOD_FLUSH_MS, without waiting for its end', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    const main = new XtermScreen(COLS, ROWS, SCROLLBACK, true);
    main.write(lines(1, 300)); // fewer lines than the screen keeps (320): parsed at once
    expect(main.text().at(-2)).toBe('line 300');
    main.write(lines(301, 400)); // now more within the window: a flood, held
    expect(main.text().at(-2)).toBe('line 300');
    vi.advanceTimersByTime(FLOOD_FLUSH_MS - 1);
    expect(main.text().at(-2)).toBe('line 300');
    vi.advanceTimersByTime(1);
    expect(main.text().at(-2)).toBe('line 400');
    main.dispose();
  });
});
