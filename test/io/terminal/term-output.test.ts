import xterm from '@xterm/headless';
import { describe, expect, it } from 'vitest';
import { parseRow } from '../../../src/io/terminal/sgr-cells.js';
import { screenRows } from '../../../src/io/terminal/screen-rows.js';
import { TermOutput, type Overlay } from '../../../src/io/terminal/term-output.js';
import { bytesPerItem } from '../../helpers/allocated.js';
import { seeded } from '../../helpers/seeded.js';

const { Terminal } = xterm;

/** A real headless terminal on the other side of the output stage. */
function harness(cols: number, rows: number) {
  const term = new Terminal({ cols, rows, allowProposedApi: true });
  const writes: string[] = [];
  const out = new TermOutput((d) => writes.push(d), cols, rows);
  const flush = () => new Promise<void>((resolve) => term.write(writes.splice(0).join(''), resolve));
  const text = () => {
    const buf = term.buffer.active;
    return Array.from({ length: rows }, (_, y) => buf.getLine(buf.viewportY + y)?.translateToString(true).trimEnd() ?? '');
  };
  /** Every cell as its character and its foreground colour: the screen as it looks, not only its text. */
  const look = () => {
    const buf = term.buffer.active;
    return Array.from({ length: rows }, (_, y) => {
      const line = buf.getLine(buf.viewportY + y);
      return Array.from({ length: cols }, (_, x) => {
        const cell = line?.getCell(x);
        return `${cell?.getChars() || ' '}${cell?.getFgColor() ?? ''}`;
      }).join('');
    });
  };
  /** The UTF-8 bytes written to the terminal so far. */
  let bytes = 0;
  const written = () => bytes;
  const flushed = flush;
  return { term, out, writes, flush: () => ((bytes += writes.reduce((n, w) => n + Buffer.byteLength(w), 0)), flushed()), text, look, written };
}

describe('TermOutput', () => {
  it('draws a first frame whole and reproduces it on a real terminal', async () => {
    const h = harness(20, 3);
    h.out.frame('hello\n\x1b[31mred\x1b[39m world\n世界!', null);
    expect(h.writes[0].startsWith('\x1b[?2026h')).toBe(true);
    expect(h.writes[0].endsWith('\x1b[?2026l')).toBe(true);
    await h.flush();
    expect(h.text()).toEqual(['hello', 'red world', '世界!']);
    const cell = h.term.buffer.active.getLine(1)!.getCell(0)!;
    expect(cell.isFgPalette() && cell.getFgColor()).toBe(1);
  });

  it('writes nothing for an identical frame', () => {
    const h = harness(20, 3);
    h.out.frame('a\nb\nc', null);
    h.writes.length = 0;
    expect(h.out.frame('a\nb\nc', null)).toBe(0);
    expect(h.writes).toEqual([]);
  });

  it('writes only the changed cells of a changed row', async () => {
    const h = harness(40, 2);
    const row = 'the quick brown fox jumps over the dog';
    h.out.frame(`${row}\nsecond`, null);
    await h.flush();
    h.out.frame(`${row.replace('fox', 'cat')}\nsecond`, null);
    const data = h.writes.join('');
    expect(data).toBe('\x1b[?2026h\x1b[1;17Hcat\x1b[?2026l');
    await h.flush();
    expect(h.text()).toEqual(['the quick brown cat jumps over the dog', 'second']);
  });

  it('keeps truecolor and attributes, and clears cells that became blank', async () => {
    const h = harness(30, 2);
    h.out.frame('\x1b[1;38;2;10;20;30mbold rgb\x1b[0m tail\nline two', null);
    await h.flush();
    h.out.frame('\x1b[1;38;2;10;20;30mbold rgb\x1b[0m\n', null);
    await h.flush();
    expect(h.text()).toEqual(['bold rgb', '']);
    const c = h.term.buffer.active.getLine(0)!.getCell(0)!;
    expect([c.isBold() !== 0, c.isFgRGB(), c.getFgColor()]).toEqual([true, true, (10 << 16) | (20 << 8) | 30]);
  });

  it('redraws a wide character whole when it replaces narrow ones', async () => {
    const h = harness(10, 1);
    h.out.frame('abcdef', null);
    await h.flush();
    h.out.frame('ab世def', null);
    await h.flush();
    expect(h.text()).toEqual(['ab世def']);
    h.out.frame('abxydef', null);
    await h.flush();
    expect(h.text()).toEqual(['abxydef']);
  });

  it('places and hides the cursor, and moves it alone when only it changed', async () => {
    const h = harness(10, 3);
    h.out.frame('$ ', { x: 2, y: 0 });
    await h.flush();
    expect([h.term.buffer.active.cursorX, h.term.buffer.active.cursorY]).toEqual([2, 0]);
    h.out.frame('$ ', { x: 3, y: 1 });
    expect(h.writes.join('')).toBe('\x1b[?2026h\x1b[2;4H\x1b[?2026l');
    await h.flush();
    h.out.frame('$ ', null);
    expect(h.writes.join('')).toBe('\x1b[?2026h\x1b[?25l\x1b[?2026l');
  });

  it('clears and redraws after a resize', async () => {
    const h = harness(10, 2);
    h.out.frame('one\ntwo', null);
    await h.flush();
    h.term.resize(12, 2);
    h.out.resize(12, 2);
    h.out.frame('one\ntwo', null);
    expect(h.writes.join('')).toContain('\x1b[2J');
    await h.flush();
    expect(h.text()).toEqual(['one', 'two']);
  });

  it('round-trips rows made from another terminal, colours included', async () => {
    const src = new Terminal({ cols: 16, rows: 2, allowProposedApi: true });
    await new Promise<void>((r) => src.write('\x1b[44;97mhi\x1b[0m \x1b[38;5;208m€\x1b[48;2;1;2;3m界\x1b[0m\r\nok', r));
    const h = harness(16, 2);
    h.out.frame(screenRows(src).join('\n'), null);
    await h.flush();
    expect(screenRows(h.term)).toEqual(screenRows(src));
  });

  it('rewrites only a changed overlay, leaving the chrome and the other overlays on the row alone', async () => {
    const h = harness(20, 2);
    h.out.setChrome('main      |\nmain two  |');
    const left = [parseRow('L1', 4), parseRow('L2', 4)];
    const first = [parseRow('aaaa', 8), parseRow('bbbb', 8)];
    h.out.draw([{ x: 0, y: 0, cols: 4, rows: left }, { x: 11, y: 0, cols: 8, rows: first }], null);
    await h.flush();
    expect(h.text()).toEqual(['L1        |aaaa', 'L2   two  |bbbb']);
    const next = [parseRow('bbbb', 8), parseRow('cccc', 8)];
    h.out.draw([{ x: 0, y: 0, cols: 4, rows: left }, { x: 11, y: 0, cols: 8, rows: next }], null);
    const written = h.writes.join('');
    await h.flush();
    expect(h.text()).toEqual(['L1        |bbbb', 'L2   two  |cccc']);
    expect(written).not.toContain('L1');
    expect(written).not.toContain('main');
    // An overlay that moves redraws the whole row.
    h.out.draw([{ x: 0, y: 0, cols: 4, rows: left }, { x: 12, y: 0, cols: 8, rows: next }], null);
    await h.flush();
    expect(h.text()).toEqual(['L1        | bbbb', 'L2   two  | cccc']);
  });

  it('shows what a fresh stage shows, frame after frame, when overlays are kept, replaced in part or moved', async () => {
    const cols = 24;
    const rows = 6;
    const h = harness(cols, rows);
    const next = seeded(3);
    const word = () => Array.from({ length: 1 + next(6) }, () => 'abcxyz世'[next(7)]).join('');
    const rowOf = (w: number) => parseRow(`\x1b[${31 + next(3)}m${word()}`, w);
    // Three overlays: a main pane, a header row and a panel body, as the cockpit pastes them.
    let overlays: Overlay[] = [
      { x: 0, y: 0, cols: 10, rows: Array.from({ length: rows }, () => rowOf(10)) },
      { x: 11, y: 0, cols: 13, rows: [rowOf(13)] },
      { x: 11, y: 1, cols: 13, rows: Array.from({ length: rows - 1 }, () => rowOf(13)) },
    ];
    let chrome = `${' '.repeat(10)}│\n`.repeat(rows);
    for (let frame = 0; frame < 80; frame++) {
      const pick = next(6);
      if (pick === 0 || pick === 5) overlays = overlays.map((o, i) => (i === 1 ? { ...o, rows: [rowOf(o.cols)] } : o)); // a header's new text
      else if (pick === 1) overlays = overlays.map((o, i) => (i === 2 ? { ...o, rows: o.rows.map((r, k) => (k === next(o.rows.length) ? rowOf(o.cols) : r)) } : o));
      else if (pick === 2) overlays = overlays.map((o, i) => (i === 0 ? { ...o, y: next(2), rows: o.rows.slice(0, rows - 1) } : o)); // moved
      else if (pick === 3) chrome = `${word()}${' '.repeat(4)}│\n`.repeat(rows);
      // 5: a second's new header text alone, patched in (a full frame while the stage cannot yet).
      const patched = pick === 5 && h.out.patch([overlays[1]]);
      if (pick === 5) expect(patched).toBe(frame > 0);
      if (!patched) {
        h.out.setChrome(chrome);
        h.out.draw(overlays, null);
      }
      await h.flush();
      const fresh = harness(cols, rows);
      fresh.out.setChrome(chrome);
      fresh.out.draw(overlays, null);
      await fresh.flush();
      expect(h.look()).toEqual(fresh.look());
    }
  });

  it('patches header rows alone: only their changed cells, the pen reset, the cursor put back, and a later full frame writes nothing more', async () => {
    const h = harness(30, 3);
    h.out.setChrome('main          │\nmain          │\nmain          │');
    const main: Overlay = { x: 0, y: 0, cols: 14, rows: [parseRow('$ ls', 14), parseRow('a b', 14), parseRow('$ ', 14)] };
    const head = (text: string): Overlay => ({ x: 15, y: 0, cols: 15, rows: [parseRow(`\x1b[1;34m● a · ${text}`, 15)] });
    expect(h.out.patch([head('1s')])).toBe(false); // nothing drawn yet: a full frame first
    h.out.draw([main, head('1s')], { x: 2, y: 2 });
    await h.flush();
    expect(h.out.patch([head('2s')])).toBe(true);
    const data = h.writes.join('');
    expect(data).toBe('\x1b[?2026h\x1b[1;22H\x1b[0;1;34m2\x1b[0m\x1b[3;3H\x1b[?2026l');
    await h.flush();
    expect(h.text()).toEqual(['$ ls          │● a · 2s', 'a b           │', '$             │']);
    expect([h.term.buffer.active.cursorX, h.term.buffer.active.cursorY]).toEqual([2, 2]);
    expect(h.out.patch([head('2s')])).toBe(true);
    expect(h.writes).toEqual([]); // the same text: nothing to write
    h.out.draw([main, head('2s')], { x: 2, y: 2 });
    expect(h.writes).toEqual([]); // the full frame knows what the patch wrote
    // A full frame draws what it is given, even the very rows of the frame before the patch.
    const before = head('1s');
    h.out.draw([main, before], { x: 2, y: 2 });
    await h.flush();
    expect(h.out.patch([head('5s')])).toBe(true);
    await h.flush();
    h.out.draw([main, before], { x: 2, y: 2 });
    await h.flush();
    expect(h.text()[0]).toBe('$ ls          │● a · 1s');
    h.out.repaint();
    expect(h.out.patch([head('3s')])).toBe(false); // a client attached: everything anew, by a full frame
  });
});

/** An echo written ahead of its frame. */
const ahead = (out: TermOutput, x: number, y: number, chars: string, style: string) => out.ahead(x, y, chars, style);

describe('TermOutput.ahead', () => {
  /** A frame of one pane's text as an overlay, the cursor after `prompt`'s text on row 0. */
  const paneFrame = (h: ReturnType<typeof harness>, line: string, cursorX: number) =>
    h.out.draw([{ x: 0, y: 0, cols: 20, rows: [parseRow(line, 20), parseRow('', 20)] }], { x: cursorX, y: 0 });

  it('writes an echo at the cursor before its frame, and the frame after it writes nothing', async () => {
    const h = harness(20, 2);
    paneFrame(h, '$ ', 2);
    await h.flush();
    expect(ahead(h.out, 2, 0, 'ls', '1;32')).toBe(true);
    expect(h.writes).toEqual(['\x1b[1;3H\x1b[0;1;32mls\x1b[0m']);
    await h.flush();
    expect(h.text()[0]).toBe('$ ls');
    expect([h.term.buffer.active.cursorX, Boolean(h.term.buffer.active.getLine(0)!.getCell(2)!.isBold())]).toEqual([4, true]);
    expect(paneFrame(h, '$ \x1b[1;32mls\x1b[0m', 4)).toBe(0); // the parsed screen says the same: nothing to write
    expect(h.out.stats.aheads).toBe(1);
  });

  it('draws the truth over a wrong guess at the next frame', async () => {
    const h = harness(20, 2);
    paneFrame(h, '$ ', 2);
    ahead(h.out, 2, 0, 'x', '');
    paneFrame(h, '$ *', 3); // the program echoed something else
    await h.flush();
    expect(h.text()[0]).toBe('$ *');
  });

  it('writes nothing when the cursor is elsewhere or hidden, nothing is drawn yet, or the cells reach the edge or a wide character', () => {
    const fresh = harness(20, 2);
    expect(ahead(fresh.out, 0, 0, 'a', '')).toBe(false);
    const h = harness(20, 2);
    paneFrame(h, '$ 世', 2);
    h.writes.length = 0;
    expect(ahead(h.out, 3, 0, 'a', '')).toBe(false); // not where the cursor is
    expect(ahead(h.out, 2, 0, 'a', '')).toBe(false); // over the left half of 世
    paneFrame(h, '$ ', 18);
    h.writes.length = 0;
    expect(ahead(h.out, 18, 0, 'ab', '')).toBe(false); // the last column
    h.out.draw([], null);
    h.writes.length = 0;
    expect(ahead(h.out, 18, 0, 'a', '')).toBe(false); // the cursor hidden
    expect(h.writes).toEqual([]);
  });
});

describe('parseRow', () => {
  it("reads an SGR list by what it does to the pen before it (the pen's states are remembered, not the list alone)", () => {
    expect(parseRow('\x1b[1m\x1b[31mX', 1).styles[0]).toBe('1;31');
    expect(parseRow('\x1b[31mX', 1).styles[0]).toBe('31');
    expect(parseRow('\x1b[1m\x1b[31mX', 1).styles[0]).toBe('1;31');
    expect(parseRow('\x1b[1;31mX\x1b[22mY\x1b[0mZ', 3).styles).toEqual(['1;31', '31', '']);
    expect(parseRow('\x1b[22mY', 1).styles[0]).toBe('');
  });
});


describe('TermOutput while panels stream', () => {
  it('composes and writes a frame of 8 changing panels without new arrays a row or a string a cell', () => {
    const cols = 160;
    const out = new TermOutput(() => {}, cols, 60);
    out.frame(Array.from({ length: 60 }, (_, y) => `row ${y}`).join('\n'), null);
    let n = 0;
    // Each frame every panel's 6 rows are new rows (their text scrolled), as the panes' cells are.
    const frame = (): Overlay[] =>
      Array.from({ length: 8 }, (_, p) => ({
        x: 90,
        y: 1 + p * 7,
        cols: 70,
        rows: Array.from({ length: 6 }, (_, k) => parseRow(`word ${n + k} of panel ${p} `.repeat(4), 70)),
      }));
    const frames = Array.from({ length: 30 }, () => (n++, frame()));
    for (let i = 0; i < 200; i++) out.draw(frames[i % frames.length]!, null);
    const perFrame = bytesPerItem(20, () => Array.from({ length: 10 }, () => (n++, frame())), (overlays) => out.draw(overlays, null));
    // New arrays for every composed row (48 rows of 160 cells, two arrays each) made it about 185 KB a frame; a
    // string a written cell and one a row, 56 KB. The frame's own bytes (about 7 KB) remain.
    expect(perFrame).toBeLessThan(16_000);
  });

  it("copies a chrome row into a row only when its chrome or its overlays' places changed, not a frame", () => {
    const cols = 160;
    const out = new TermOutput(() => {}, cols, 60);
    const chrome = (mark: string): string => Array.from({ length: 60 }, (_, y) => `row ${y}${mark}`).join('\n');
    out.frame(chrome(''), null);
    let n = 0;
    // 8 panels in two columns of four, each row new every frame, as a streaming cockpit's.
    const frame = (x = 0): Overlay[] =>
      Array.from({ length: 8 }, (_, p) => ({
        x: x + (p % 2) * 81,
        y: 1 + (p >> 1) * 7,
        cols: 79,
        rows: Array.from({ length: 6 }, (_, k) => parseRow(`word ${n++ + k} of panel ${p} `.repeat(4), 79)),
      }));
    for (let i = 0; i < 4; i++) out.draw(frame(), null); // every row and its spare made once
    const copied = out.rowsCopied;
    for (let i = 0; i < 50; i++) out.draw(frame(), null);
    expect(out.rowsCopied - copied).toBe(0);
    out.setChrome(chrome('!')); // the chrome changed: each row's next two composes (the row and its spare) copy it
    for (let i = 0; i < 10; i++) out.draw(frame(), null);
    expect(out.rowsCopied - copied).toBe(2 * 24);
    for (let i = 0; i < 10; i++) out.draw(frame(1), null); // the panels moved a column
    expect(out.rowsCopied - copied).toBe(4 * 24);
  });

  it('writes wide, accented and styled characters as UTF-8, reproduced on a real terminal, and counts their bytes', async () => {
    const h = harness(24, 4);
    h.out.frame('top\n\n\nbottom', null);
    await h.flush();
    const texts = ['é 世界 ñ x', '\x1b[31mrød\x1b[0m ok 世界界', 'plain ascii only', 'ß\x1b[1m世\x1b[0mz'];
    for (let i = 0; i < texts.length; i++) {
      const rows = [parseRow(texts[i]!, 20), parseRow(texts[(i + 1) % texts.length]!, 20)];
      h.out.draw([{ x: 2, y: 1, cols: 20, rows }], { x: 0, y: 3 });
      await h.flush();
      expect(h.text().slice(1, 3)).toEqual(rows.map((r) => `  ${r.chars.join('')}`.trimEnd()));
    }
    expect(h.out.stats.bytes).toBe(h.written());
  });
});
