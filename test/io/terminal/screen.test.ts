import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { XtermScreen } from '../../../src/io/terminal/screen.js';

const MAX = 2147483647;

/** Writes into a fresh 40x6 screen and waits until all of it is parsed. */
async function screenAfter(...chunks: string[]): Promise<XtermScreen> {
  const s = new XtermScreen(40, 6);
  for (const c of chunks) s.write(c);
  await s.parsed();
  return s;
}

const blank = ['', '', '', '', '', ''];

// Without the clamp each of these runs 2^31 steps in xterm.js (about 50 minutes): the test times out.
describe('XtermScreen under hostile counts', () => {
  it.each([
    ['scroll up', `top\x1b[${MAX}S`, blank],
    ['scroll down', `top\x1b[${MAX}T`, blank],
    ['insert lines', `top\x1b[H\x1b[${MAX}L`, blank],
    ['delete lines', `top\x1b[H\x1b[${MAX}M`, blank],
    ['insert chars', `abc\x1b[H\x1b[${MAX}@`, blank],
    ['delete chars', `abc\x1b[H\x1b[${MAX}P`, blank],
    ['erase chars', `abc\x1b[H\x1b[${MAX}X`, blank],
    ['cursor next line', `\x1b[${MAX}Ex`, ['', '', '', '', '', 'x']],
    ['cursor preceding line', `\x1b[6;5H\x1b[${MAX}Fx`, ['x', '', '', '', '', '']],
    ['line absolute', `\x1b[${MAX}dx`, ['', '', '', '', '', 'x']],
    ['column absolute', `\x1b[${MAX}Gx`, ['                                       x', '', '', '', '', '']],
    ['tab forward', `\x1b[${MAX}Ix`, ['                                       x', '', '', '', '', '']],
  ])('survives %s with a count of 2^31-1 and shows what xterm would', { timeout: 10_000 }, async (_name, bomb, rows) => {
    const s = await screenAfter(bomb);
    expect(s.text()).toEqual(rows);
    s.dispose();
  });

  it('repeats a character over the whole screen at most, never 2^31 times', { timeout: 10_000 }, async () => {
    const s = await screenAfter(`x\x1b[${MAX}b`);
    // One x and 240 repeats: the screen's cells plus one, so it scrolled once.
    expect(s.text()).toEqual([...Array(5).fill('x'.repeat(40)), 'x']);
    expect(s.term.buffer.active.length).toBeLessThanOrEqual(6 + 1); // no 2^31 characters of scrollback
    s.dispose();
  });

  it('survives every bomb in one chunk and the same split across chunks, and stays usable', { timeout: 10_000 }, async () => {
    const bombs = ['S', 'T', 'L', 'M', '@', 'P', 'X', 'E', 'F', 'd', 'G'].map((f) => `\x1b[${MAX}${f}`).join('') + `x\x1b[${MAX}b`;
    const whole = await screenAfter(bombs, '\x1b[2J\x1b[Hsane');
    expect(whole.text()[0]).toBe('sane');
    const pieces: string[] = [];
    for (let i = 0; i < bombs.length; i += 3) pieces.push(bombs.slice(i, i + 3));
    const split = await screenAfter(...pieces, '\x1b[2J\x1b[Hsane');
    expect(split.text()).toEqual(whole.text());
    whole.dispose();
    split.dispose();
  });

  it('lets a timer run while a heavy write is parsed', { timeout: 20_000 }, async () => {
    // 2 000 screen fills (DECALN) are tens of milliseconds of parsing; xterm yields only between writes.
    const s = new XtermScreen(200, 50);
    s.write('\x1b#8'.repeat(2_000) + '\x1b[50;1HEND');
    const lastRowAtTimer = await new Promise<string>((resolve) => setTimeout(() => resolve(s.text()[49]!), 0));
    expect(lastRowAtTimer.startsWith('END')).toBe(false);
    await s.parsed();
    expect(s.text()[0]).toBe('E'.repeat(200));
    s.dispose();
  });

  it('calls back once everything written so far is parsed, also for an empty write', async () => {
    const s = new XtermScreen(10, 2);
    const order: string[] = [];
    s.write('ab', () => order.push('ab'));
    s.write('', () => order.push('empty'));
    await s.parsed();
    expect(order).toEqual(['ab', 'empty']);
    expect(s.text()[0]).toBe('ab');
    s.dispose();
  });
});

// The echo ahead reads xterm.js's internals (xterm-internals.ts): on, whatever the caller's TAI_INTERNALS.
beforeAll(() => vi.stubEnv('TAI_INTERNALS', '1'));
afterAll(() => vi.unstubAllEnvs());

describe('XtermScreen.writeAfterTurn (an echo already on the terminal, parsed after its turn)', () => {
  /** The cursor's column on the screen's buffer. */
  const cursorX = (s: XtermScreen) => s.term.buffer.active.cursorX;

  it('parses the held output on a timer, or first when the screen is read or an echo predicted', async () => {
    const s = new XtermScreen(40, 6, 100, true);
    s.write('$ ');
    let parsed = false;
    s.writeAfterTurn('a', () => (parsed = true));
    expect(parsed).toBe(false); // not parsed in this turn
    await vi.waitFor(() => expect(parsed).toBe(true));
    expect(cursorX(s)).toBe(3);
    s.writeAfterTurn('b');
    // Predicted from what came before it: the held b is parsed first.
    expect(s.echoOf('c')).toEqual({ x: 4, y: 0, chars: 'c', style: '' });
    s.writeAfterTurn('c');
    expect(cursorX(s)).toBe(5); // `term` settles the screen before it is read
    s.dispose();
  });

  it('parses the held output first whenever the screen is written, resized, read or waited for', async () => {
    const s = new XtermScreen(40, 6, 100, true);
    s.writeAfterTurn('a');
    s.write('b'); // in order: a, then b
    expect(s.text()[0]).toBe('ab');
    s.writeAfterTurn('c');
    s.resize(30, 6);
    expect(cursorX(s)).toBe(3);
    s.writeAfterTurn('d');
    expect(s.text()[0]).toBe('abcd');
    s.writeAfterTurn('e');
    await s.parsed();
    expect(cursorX(s)).toBe(5);
    s.writeAfterTurn('f');
    s.dispose(); // its timer is cleared: nothing parses into a disposed terminal
  });

  it('makes one timer for all the echoes it holds, each parsed after its turn (none made between an echo and the sleep)', async () => {
    const s = new XtermScreen(40, 6, 100, true);
    const made = vi.spyOn(globalThis, 'setTimeout');
    try {
      for (const ch of 'abc') {
        let parsed = false;
        s.writeAfterTurn(ch, () => (parsed = true));
        expect(parsed).toBe(false);
        await vi.waitFor(() => expect(parsed).toBe(true));
      }
      s.writeAfterTurn('d');
      s.write('e'); // settled sooner: the timer finds nothing held
      expect(s.text()[0]).toBe('abcde');
      const timers = made.mock.calls.filter(([fn]) => fn.toString().includes('settle'));
      expect(timers).toHaveLength(1);
    } finally {
      made.mockRestore();
      s.dispose();
    }
  });
});
