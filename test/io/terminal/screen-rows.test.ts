import xterm from '@xterm/headless';
import { describe, expect, it } from 'vitest';
import { cursorOf, lineToCells, screenCells, screenRows, trackCursorVisibility } from '../../../src/io/terminal/screen-rows.js';

const { Terminal } = xterm;

const write = (t: InstanceType<typeof Terminal>, d: string) => new Promise<void>((r) => t.write(d, r));

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
    const fresh = () => {
      const buf = t.buffer.active;
      return Array.from({ length: 3 }, (_, y) => lineToCells(buf.getLine(buf.baseY + y), 6, buf.getNullCell()));
    };
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
});
