import { readFileSync } from 'node:fs';
import xterm from '@xterm/headless';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { activeLines, lineWords, missingInternals, onRowsWritten, parseNextAtOnce, wholeScreenScrolls } from '../../../src/io/terminal/xterm-internals.js';
import { screenCells } from '../../../src/io/terminal/screen-rows.js';
import { XtermScreen } from '../../../src/io/terminal/screen.js';
import { seeded } from '../../helpers/seeded.js';

const { Terminal } = xterm;

/** The installed @xterm/headless's version, for the canary's message. */
const VERSION = (JSON.parse(readFileSync(new URL('../../../node_modules/@xterm/headless/package.json', import.meta.url), 'utf8')) as { version: string }).version;

const written = (term: InstanceType<typeof Terminal>, data: string) => new Promise<void>((resolve) => term.write(data, resolve));

describe('@xterm/headless internals (the canary)', () => {
  beforeEach(() => vi.stubEnv('TAI_INTERNALS', '1'));
  afterEach(() => vi.unstubAllEnvs());

  it('finds every internal tai reads in the installed @xterm/headless, or names the version that moved them', async () => {
    const term = new Terminal({ cols: 20, rows: 4, allowProposedApi: true });
    await written(term, 'abc');
    const missing = missingInternals(term);
    expect(missing, `@xterm/headless ${VERSION} no longer has ${missing.join(', ')}: src/io/terminal/xterm-internals.ts needs updating (TAI_INTERNALS=0 works around it meanwhile)`).toEqual([]);
    term.dispose();
  });

  it('says which internal is gone when xterm.js changes shape', () => {
    const term = new Terminal({ cols: 20, rows: 4, allowProposedApi: true });
    delete (term as unknown as { _core: { _writeBuffer?: unknown } })._core._writeBuffer;
    expect(missingInternals(term)).toEqual(['_core._writeBuffer.handleUserInput']);
    term.dispose();
  });

  it('reads what the public API says: the rows a write touched, the line objects and their words, the scroll region', async () => {
    const term = new Terminal({ cols: 20, rows: 4, allowProposedApi: true });
    const ranges: unknown[] = [];
    expect(onRowsWritten(term, (r) => ranges.push(r))).toBe(true);
    await written(term, '\r\n\r\nX');
    expect(ranges.some((r) => r !== undefined && (r as { start: number }).start <= 2 && (r as { end: number }).end >= 2)).toBe(true);
    const words = lineWords(activeLines(term)!.get(2)!);
    expect(words![0]! & 0x1fffff).toBe('X'.charCodeAt(0)); // the first cell's code point
    expect(wholeScreenScrolls(term)).toBe(true);
    await written(term, '\x1b[2;3r');
    expect(wholeScreenScrolls(term)).toBe(false);
    term.dispose();
  });
});

describe('@xterm/headless with the internals switched off (TAI_INTERNALS=0)', () => {
  beforeEach(() => vi.stubEnv('TAI_INTERNALS', '0'));
  afterEach(() => vi.unstubAllEnvs());

  it('reaches nothing, and the screen still parses its output and shows the same cells', async () => {
    const term = new Terminal({ cols: 20, rows: 4, allowProposedApi: true });
    expect([parseNextAtOnce(term), activeLines(term), onRowsWritten(term, () => {}), wholeScreenScrolls(term)]).toEqual([undefined, undefined, false, false]);
    term.dispose();
    const screen = new XtermScreen(20, 4, 100, true);
    screen.write('\x1b[1mab\x1b[0m c');
    await screen.parsed();
    expect(screen.text()[0]).toBe('ab c');
    const row = screenCells(screen.term)[0]!;
    expect([row.chars.slice(0, 4), row.styles.slice(0, 4)]).toEqual([['a', 'b', ' ', 'c'], ['1', '1', '', '']]);
    screen.dispose();
  });
});

/** Pieces of a program's output: text, wide and joined characters, styles, cursor moves, erases, scroll regions. */
const PIECES = [
  'word ', 'a longer line of text that wraps past the edge ', '\r\n', '\n', '\t', '漢字', '😀', 'e\u0301', '\x1b[1m', '\x1b[3;31m',
  '\x1b[38;5;208m', '\x1b[48;2;10;20;30m', '\x1b[0m', '\x1b[7m', '\x1b[H', '\x1b[2J', '\x1b[3;5H', '\x1b[K', '\x1b[2;4r', '\x1b[r',
  '\x1b[L', '\x1b[M', '\x1b[2P', '\x1b[3@', '\x1bM', '\x1b[?1049h', '\x1b[?1049l', '\x1b[5S',
];

/** `body` run with TAI_INTERNALS set to `on`'s value, the caller's put back after. */
function withInternals<T>(on: boolean, body: () => T): T {
  vi.stubEnv('TAI_INTERNALS', on ? '1' : '0');
  try {
    return body();
  } finally {
    vi.unstubAllEnvs();
  }
}

describe('@xterm/headless read with and without the internals', () => {
  it('shows the same cells, scrollback too, on generated output', async () => {
    for (let seed = 1; seed <= 12; seed++) {
      const next = seeded(seed);
      const [on, off] = [true, false].map((mode) => withInternals(mode, () => new XtermScreen(16, 5, 50, true)));
      for (let chunk = 0; chunk < 25; chunk++) {
        const data = Array.from({ length: 1 + next(6) }, () => PIECES[next(PIECES.length)]!).join('');
        for (const [mode, screen] of [[true, on!], [false, off!]] as const) withInternals(mode, () => screen.write(data));
        await Promise.all([on!.parsed(), off!.parsed()]);
        const read = (mode: boolean, screen: XtermScreen) => withInternals(mode, () => [screenCells(screen.term), screenCells(screen.term, 8)]);
        expect(read(false, off!), `seed ${seed}, chunk ${chunk}`).toEqual(read(true, on!));
      }
      on!.dispose();
      off!.dispose();
    }
  });
});
