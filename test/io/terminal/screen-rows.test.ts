import xterm from '@xterm/headless';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cursorOf, lineToCells, screenCells, screenRows, trackCursorVisibility } from '../../../src/io/terminal/screen-rows.js';
import { XtermScreen } from '../../../src/io/terminal/screen.js';
import { bytesPerItem } from '../../helpers/allocated.js';
import { seeded } from '../../helpers/seeded.js';

// What these tests guard needs xterm.js's line objects (xterm-internals.ts): on, whatever the caller's TAI_INTERNALS.
beforeAll(() => vi.stubEnv('TAI_INTERNALS', '1'));
afterAll(() => vi.unstubAllEnvs());

const { Terminal } = xterm;

const write = (t: InstanceType<typeof Terminal>, d: string) => new Promise<void>((r) => t.write(d, r));

/** Every row of `t`'s screen converted whole (lineToCells), from `scrollback` lines up: what screenCells must give. */
const fullCells = (t: InstanceType<typeof Terminal>, scrollback = 0) => {
  const buf = t.buffer.active;
  const top = Math.max(0, buf.baseY - scrollback);
  return Array.from({ length: t.rows }, (_, y) => lineToCells(buf.getLine(top + y), t.cols, buf.getNullCell()));
};

describe('screenRows', () => {
  it('makes one row per line, exactly cols wide, with SGR codes for colours', async () => {
    const t = new Terminal({ cols: 8, rows: 2, allowProposedApi: true });
    await write(t, '\x1b[31mab\x1b[0mc\r\n\x1b[1;38;2;1;2;3mX');
    expect(screenRows(t)).toEqual(['\x1b[0;31mab\x1b[0mc     ', '\x1b[0;1;38;2;1;2;3mX\x1b[0m       ']);
  });

  it('keeps 256-colour and bright colours', async () => {
    const t = new Terminal({ cols: 4, rows: 1, allowProposedApi: true });
    await write(t, '\x1b[38;5;208;101mA');
    expect(screenRows(t)[0]).toBe('\x1b[0;38;5;208;101mA\x1b[0m   ');
  });

  it('takes two cells for a wide character and skips its right half', async () => {
    const t = new Terminal({ cols: 5, rows: 1, allowProposedApi: true });
    await write(t, '世a');
    expect(screenRows(t)[0]).toBe('世a  ');
  });

  it('shows scrollback lines when scrolled back', async () => {
    const t = new Terminal({ cols: 4, rows: 2, scrollback: 10, allowProposedApi: true });
    await write(t, '1\r\n2\r\n3\r\n4');
    expect(screenRows(t).map((r) => r.trim())).toEqual(['3', '4']);
    expect(screenRows(t, 2).map((r) => r.trim())).toEqual(['1', '2']);
    expect(screenRows(t, 99).map((r) => r.trim())).toEqual(['1', '2']);
  });

  it('reports the cursor and whether the program hid it', async () => {
    const t = new Terminal({ cols: 10, rows: 3, allowProposedApi: true });
    const vis = trackCursorVisibility(t);
    await write(t, 'ab\r\ncd');
    expect(cursorOf(t)).toEqual({ x: 2, y: 1 });
    await write(t, '\x1b[?25l');
    expect(vis.hidden()).toBe(true);
    await write(t, '\x1b[?25h');
    expect(vis.hidden()).toBe(false);
  });

  it('keeps the row objects of lines that only scrolled, and converts changed or combined lines again', async () => {
    const t = new Terminal({ cols: 6, rows: 3, scrollback: 2, allowProposedApi: true });
    const fresh = () => fullCells(t);
    await write(t, 'one\r\n\x1b[32mtwo\x1b[0m\r\nthree');
    const first = screenCells(t);
    expect(first).toEqual(fresh());
    await write(t, '\r\nfour');
    const second = screenCells(t);
    expect(second).toEqual(fresh());
    expect(second[0]).toBe(first[1]); // 'two' only moved up
    expect(second[1]).toBe(first[2]);
    await write(t, '!\r\ne\u0301\r\nsix\r\nseven\r\n8'); // the scrollback is full: xterm recycles line objects
    expect(screenCells(t)).toEqual(fresh());
    await write(t, '\x1b[1;1H\x1b[7mX');
    expect(screenCells(t)).toEqual(fresh());
  });

  it("converts an echo without xterm's buffer getter or a new cell, and follows a switch to the alternate screen", async () => {
    const t = new Terminal({ cols: 10, rows: 2, allowProposedApi: true });
    const fresh = () => fullCells(t);
    await write(t, '$ ');
    screenCells(t);
    const cells = vi.spyOn(t.buffer.normal, 'getNullCell');
    const getter = vi.spyOn(t, 'buffer', 'get');
    await write(t, 'k');
    const echoed = screenCells(t);
    expect(getter).not.toHaveBeenCalled(); // its getter checks the proposed-API option on every call
    expect(cells).not.toHaveBeenCalled(); // a new cell on every call
    getter.mockRestore();
    cells.mockRestore();
    expect(echoed).toEqual(fresh());
    await write(t, '\x1b[?1049hfull screen');
    expect(screenCells(t)).toEqual(fresh());
    expect(screenCells(t)[0]?.chars.join('')).toContain('full'); // the alternate screen's, not the normal one's
    await write(t, '\x1b[?1049l');
    expect(screenCells(t)).toEqual(fresh());
  });

  it('reads again only the cells an echo changed on a written line, and gives the same cells as a full conversion', async () => {
    const t = new Terminal({ cols: 40, rows: 4, allowProposedApi: true });
    const fresh = () => fullCells(t);
    await write(t, '$ \x1b[32mgreen\x1b[0m and plain text on one line');
    const first = screenCells(t);
    // Count the cells read through the API: the echo of one key changes one cell of a line of 40.
    const view = Object.getPrototypeOf(t.buffer.active.getLine(0)) as { getCell: (...a: unknown[]) => unknown };
    const getCell = view.getCell;
    let reads = 0;
    view.getCell = function (this: unknown, ...a: unknown[]) {
      reads++;
      return getCell.apply(this, a);
    };
    // And the lines viewed through the API (a new object each): only the written one.
    const buffer = Object.getPrototypeOf(t.buffer.active) as { getLine: (...a: unknown[]) => unknown };
    const getLine = buffer.getLine;
    let views = 0;
    buffer.getLine = function (this: unknown, ...a: unknown[]) {
      views++;
      return getLine.apply(this, a);
    };
    try {
      await write(t, '\x1b[1;3H\x1b[1;31mG');
      const second = screenCells(t);
      buffer.getLine = getLine;
      expect(reads).toBe(1);
      expect(views).toBe(1);
      expect(second).toEqual(fresh());
      expect(second[0]).not.toBe(first[0]);
      expect(second[1]).toBe(first[1]);
    } finally {
      view.getCell = getCell;
      buffer.getLine = getLine;
    }
  });

  it('converts a written line whole where a wide character is written over or over one', async () => {
    const t = new Terminal({ cols: 8, rows: 2, allowProposedApi: true });
    const fresh = () => fullCells(t);
    for (const chunk of ['ab世cd界', '\x1b[1;3Hx', '\x1b[1;4Hy', '\x1b[1;1H世', '\x1b[1;2H\x1b[7mz', '\x1b[1;7H😀', '\x1b[1;8Hq', '\x1b[2;7H世', '\x1b[2;8H!']) {
      await write(t, chunk);
      expect(screenCells(t), JSON.stringify(chunk)).toEqual(fresh());
    }
  });

  it('gives the same cells as a full conversion after every write of a long random session, scrolled back or not', async () => {
    // A seeded generator: the same session every run.
    const rand = seeded(17);
    const ops: (() => string)[] = [
      () => 'abcdefghij'.slice(0, 1 + rand(10)),
      () => '\r\n',
      () => '\n\n\n',
      () => `\x1b[${1 + rand(7)};${1 + rand(12)}H`,
      () => ['\x1b[K', '\x1b[1K', '\x1b[2K', '\x1b[J', '\x1b[1J', '\x1b[2J'][rand(6)]!,
      () => `\x1b[${1 + rand(3)}${'LMSTPX@b'[rand(8)]!}`,
      () => `\x1b[${1 + rand(3)};${4 + rand(4)}r`,
      () => '\x1b[r',
      () => ['\x1bM', '\x1bD', '\x1bE', '\x1b7', '\x1b8'][rand(5)]!,
      () => `\x1b[${31 + rand(7)};${rand(2) ? 1 : 4}m`,
      () => '\x1b[0m',
      () => ['世界', 'e\u0301', '😀', '\t'][rand(4)]!,
      () => (rand(2) ? '\x1b[?1049h' : '\x1b[?1049l'),
      () => (rand(8) === 0 ? '\x1bc' : ''),
      () => (rand(6) === 0 ? '\x1b#8' : ''),
    ];
    for (const scrollback of [0, 3]) {
      const t = new Terminal({ cols: 12, rows: 7, scrollback: 20, allowProposedApi: true });
      const fresh = () => fullCells(t, scrollback);
      for (let step = 0; step < 1000; step++) {
        let chunk = '';
        for (let k = rand(4); k >= 0; k--) chunk += ops[rand(ops.length)]!();
        await write(t, chunk);
        if (step % 300 === 299) t.resize(10 + rand(5), 5 + rand(4));
        if (rand(3) === 0) continue; // some writes pile up before a frame reads them
        expect(screenCells(t, scrollback), `step ${step}: ${JSON.stringify(chunk)}`).toEqual(fresh());
      }
    }
  });

  it('reads 8 streaming panels a frame with little garbage, and gives the same cells as a full conversion', () => {
    const screens = Array.from({ length: 8 }, () => new XtermScreen(70, 6));
    const words = ['alpha ', 'beta ', 'gamma ', '\x1b[1;32mdelta\x1b[0m ', 'epsilon ', 'zeta '];
    let n = 0;
    // A frame's worth at 500 tokens/s and 50 ms a frame: 25 words a panel, a line and more, so every panel scrolls.
    const stream = () => {
      for (const s of screens) {
        let chunk = '';
        for (let i = 0; i < 25; i++) chunk += words[(n++ * 7) % words.length]!;
        s.write(chunk);
      }
      return [screens];
    };
    for (let i = 0; i < 100; i++) {
      stream();
      for (const s of screens) expect(screenCells(s.term)).toEqual(fullCells(s.term));
    }
    const perFrame = bytesPerItem(20, () => stream(), (all) => all.forEach((s) => screenCells(s.term)));
    // Two new arrays a converted line, a copy of every changed line's words, a Map of the moved lines and a new
    // SGR string a styled cell made it about 125 KB.
    expect(perFrame).toBeLessThan(70_000);
  });
});
