import { readFileSync } from 'node:fs';
import xterm from '@xterm/headless';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { activeLines, lineWords, missingInternals, onRowsWritten, parseNextAtOnce, wholeScreenScrolls } from '../../../src/io/terminal/xterm-internals.js';
import { screenCells } from '../../../src/io/terminal/screen-rows.js';
import { XtermScreen } from '../../../src/io/terminal/screen.js';

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
