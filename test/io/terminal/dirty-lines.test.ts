import xterm from '@xterm/headless';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DirtyLines } from '../../../src/io/terminal/dirty-lines.js';
import { screenCells, screenRows } from '../../../src/io/terminal/screen-rows.js';
import { MAIN_SCROLLBACK, XtermScreen } from '../../../src/io/terminal/screen.js';
import { TermOutput } from '../../../src/io/terminal/term-output.js';

// What these tests guard needs xterm.js's internals (xterm-internals.ts): on, whatever the caller's TAI_INTERNALS.
beforeAll(() => vi.stubEnv('TAI_INTERNALS', '1'));
afterAll(() => vi.unstubAllEnvs());

const { Terminal } = xterm;
type Term = InstanceType<typeof Terminal>;

const write = (t: Term, d: string) => new Promise<void>((r) => t.write(d, r));

/** xterm's line object on visible row `y` (what DirtyLines notes). */
const lineAt = (t: Term, y: number): unknown => (t.buffer.active.getLine(t.buffer.active.baseY + y) as unknown as { _line: unknown })._line;

/** A real headless terminal drawn by an output stage, as a client's terminal is. */
function outer(cols: number, rows: number) {
  const term = new Terminal({ cols, rows, allowProposedApi: true });
  const writes: string[] = [];
  const out = new TermOutput((d) => writes.push(d), cols, rows);
  const flush = () => new Promise<void>((resolve) => term.write(writes.splice(0).join(''), resolve));
  return { term, out, flush };
}

/**
 * Draws `main` as the cockpit does (its cells as an overlay, through one output stage kept across frames) on
 * a second terminal, and checks that frame against a full redraw (a new stage on a new terminal, every row made again).
 */
function framer(main: XtermScreen): () => Promise<void> {
  const { cols, rows } = main.term;
  const screen = outer(cols, rows);
  return async () => {
    screen.out.draw([{ x: 0, y: 0, cols, rows: screenCells(main.term) }], null);
    await screen.flush();
    const full = outer(cols, rows);
    full.out.frame(screenRows(main.term).join('\n'), null);
    await full.flush();
    expect(screenRows(screen.term)).toEqual(screenRows(full.term));
    expect(screenRows(screen.term)).toEqual(screenRows(main.term));
  };
}

describe('DirtyLines', () => {
  it('says every line the first time, then only the line an echo wrote', async () => {
    const t = new Terminal({ cols: 20, rows: 6, allowProposedApi: true });
    await write(t, 'one\r\ntwo\r\nthree\r\n> ');
    const d = new DirtyLines(t);
    expect(d.take().all).toBe(true);
    await write(t, 'x');
    const w = d.take();
    expect(w.all).toBe(false);
    expect([...w.lines]).toEqual([lineAt(t, 3)]);
    // Nothing written: nothing noted.
    expect(d.take()).toEqual({ all: false, lines: new Set() });
    // A cursor move and a write elsewhere: the rows between are noted too (xterm's range), no others.
    await write(t, '\x1b[2;1Hy\x1b[4;4H');
    expect(new Set(d.take().lines)).toEqual(new Set([lineAt(t, 1), lineAt(t, 2), lineAt(t, 3)]));
  });

  it('says every line after a resize, and once more than two screens of lines were written', async () => {
    const t = new Terminal({ cols: 20, rows: 4, scrollback: 100, allowProposedApi: true });
    const d = new DirtyLines(t);
    d.take();
    t.resize(18, 4);
    expect(d.take().all).toBe(true);
    for (let i = 0; i < 8; i++) await write(t, `line ${i}\r\n`);
    expect(d.take().all).toBe(false);
    for (let i = 0; i < 9; i++) await write(t, `line ${i}\r\n`);
    expect(d.take().all).toBe(true);
  });

  it("notes ten echoes' lines without looking up xterm.js's core again for each", async () => {
    const t = new Terminal({ cols: 20, rows: 6, allowProposedApi: true });
    const d = new DirtyLines(t);
    d.take();
    // Each look at the core asks whether internals are on (TAI_INTERNALS): counted here.
    const real = process.env;
    let looks = 0;
    process.env = new Proxy(real, { get: (target, key) => (key === 'TAI_INTERNALS' && looks++, Reflect.get(target, key)) });
    try {
      for (let i = 0; i < 10; i++) await write(t, 'x');
    } finally {
      process.env = real;
    }
    expect([...d.take().lines]).toEqual([lineAt(t, 0)]);
    expect(looks).toBe(0);
  });

  it('says every line, every time, of a terminal without xterm.js internals', () => {
    const fake = { _core: {}, onResize: () => ({ dispose() {} }), rows: 4 } as unknown as Term;
    const d = new DirtyLines(fake);
    expect(d.take().all).toBe(true);
    expect(d.take().all).toBe(true);
  });
});

describe('the main pane drawn from the lines written', () => {
  it('draws the same frame as a full redraw after every echo, line and flood', async () => {
    const cols = 30;
    const rows = 8;
    const main = new XtermScreen(cols, rows, MAIN_SCROLLBACK, true);
    const frame = framer(main);
    await main.parsed();
    await frame();
    // `cat`: keys echoed one by one, then a line.
    for (const key of 'hello\r\n\x1b[31mred\x1b[0m\r\n') {
      main.write(key === '\n' ? '\n' : key);
      await main.parsed();
      await frame();
    }
    // A flood in pty-read-sized chunks, one frame at the end.
    let text = '';
    for (let i = 1; i <= 5_000; i++) text += `${i}\r\n`;
    for (let i = 0; i < text.length; i += 4_095) main.write(text.slice(i, i + 4_095));
    await main.parsed();
    await frame();
    expect(main.text().slice(-3)).toEqual(['4999', '5000', '']);
    expect(main.history()).toBe(MAIN_SCROLLBACK);
    // A full-screen program that redraws one cell, then the whole screen, then clears it.
    main.write('\x1b[?1049h\x1b[H\x1b[2Jtop\x1b[5;5Hmid');
    await main.parsed();
    await frame();
    main.write('\x1b[5;6HX');
    await main.parsed();
    await frame();
    main.write('\x1b[2J\x1b[?1049l');
    await main.parsed();
    await frame();
  });

  it("redraws every row after exactly a buffer's length of lines in one read (its line objects back on their rows, rewritten)", async () => {
    const cols = 30;
    const rows = 8;
    const main = new XtermScreen(cols, rows, MAIN_SCROLLBACK, true);
    const frame = framer(main);
    // The alternate screen's buffer is the screen: `rows` line feeds at the bottom bring every line object
    // round to the row it was on (xterm recycles them), each with new text, in one parse (`less +F`).
    main.write('\x1b[?1049h\x1b[H');
    for (let i = 0; i < rows; i++) main.write(`${i === 0 ? '' : '\r\n'}old ${i}`);
    await main.parsed();
    await frame();
    let text = '';
    for (let i = 0; i < rows; i++) text += `\r\nnew ${i}`;
    main.write(text);
    await main.parsed();
    await frame();
    expect(main.text().slice(0, 2)).toEqual(['new 0', 'new 1']);
  });
});
