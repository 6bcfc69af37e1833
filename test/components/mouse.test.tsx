import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_PREFIX, KeyScanner } from '../../src/core/input/keys.js';
import { routeKeys } from '../../src/io/cockpit/keys/key-router.js';
import { MentionController } from '../../src/io/cockpit/keys/mentions.js';
import { trackMouseEncoding } from '../../src/io/terminal/screen-rows.js';
import { dispatch } from '../../store/dispatch.js';
import { createMentionPrompt } from '../../store/mention-prompt.js';
import { mountCockpit } from './harness.js';

const T0 = 1_000_000;
/** An SGR report at the 1-based cell (x, y), as the outer terminal sends it. */
const sgr = (b: number, x: number, y: number, release = false): string => `\x1b[<${b};${x};${y}${release ? 'm' : 'M'}`;
const WHEEL_UP = 64;
const WHEEL_DOWN = 65;

let stop: (() => void) | undefined;
afterEach(() => {
  stop?.();
  stop = undefined;
});

/** The real cockpit on 120x40 (main pane 66 wide, the panels from column 67) and the real key path. */
function rig() {
  const m = mountCockpit(120, 40);
  const prompt = createMentionPrompt();
  const mentions = new MentionController(prompt, {
    board: m.board,
    loadEntries: async () => [],
    locate: () => undefined,
    cwd: '/',
    spawn: async () => ({ ok: false, error: 'none here' }),
    changed: () => m.source.dirty(),
  });
  const typed: string[] = [];
  const sent: string[] = [];
  const encoding = trackMouseEncoding(m.main.term);
  const type = routeKeys({
    keys: new KeyScanner(DEFAULT_PREFIX),
    board: m.board,
    mentions,
    dispatch: (c) => void dispatch(c, { board: m.board, now: T0 }),
    toMain: (d) => typed.push(d),
    mainMouse: { main: () => ({ tracking: m.main.term.modes.mouseTrackingMode, encoding: encoding.encoding() }), send: (d) => sent.push(d) },
  });
  stop = () => m.unmount();
  return { m, type, typed, sent, s: () => m.board.getState() };
}

async function fill(r: ReturnType<typeof rig>, lines: number): Promise<void> {
  r.m.main.write(Array.from({ length: lines }, (_, i) => `line ${i}`).join('\r\n'));
  await r.m.main.parsed();
}

describe('the mouse in the cockpit', () => {
  it('scrolls the main pane back three lines a notch under the pointer, no further than it keeps, and forward again', async () => {
    const r = rig();
    await fill(r, 50); // 40 rows: 10 lines of history
    r.type(sgr(WHEEL_UP, 10, 10));
    expect(r.s().scrollback).toBe(3);
    await vi.waitFor(() => expect(r.m.text()[0]).toContain('scrolled back 3 lines'));
    r.type(sgr(WHEEL_UP, 10, 10).repeat(5));
    expect(r.s().scrollback).toBe(10);
    r.type(sgr(WHEEL_DOWN, 10, 10).repeat(4));
    expect(r.s().scrollback).toBe(0);
    expect(r.typed).toEqual([]); // no report leaked into the pane as bytes
  });

  it('focuses the panel under a click, and the main pane again on a click there; a separator takes nothing', async () => {
    const r = rig();
    const id = r.s().open({ label: 'agent' }, T0);
    r.type(sgr(0, 90, 12) + sgr(0, 90, 12, true));
    expect(r.s().focus).toBe(id);
    r.type(sgr(0, 67, 12)); // column 67 (1-based) is the separator at x 66
    expect(r.s().focus).toBe(id);
    r.type(sgr(0, 5, 5));
    expect(r.s().focus).toBe('main');
    expect(r.typed).toEqual([]);
  });

  it('scrolls the panel under the wheel, focusing it', async () => {
    const r = rig();
    const id = r.s().open({ label: 'agent' }, T0);
    r.s().write(id, Array.from({ length: 80 }, (_, i) => `out ${i}\r\n`).join(''), T0);
    r.s().flush(T0 + 25);
    await vi.waitFor(() => expect(r.s().screenOf(id)?.history?.()).toBeGreaterThan(3));
    r.type(sgr(WHEEL_UP, 100, 20));
    expect([r.s().focus, r.s().scrollback]).toEqual([id, 3]);
    await vi.waitFor(() => expect(r.m.text()[0]).toContain('↑3'));
  });

  it('gives a main program that asked for SGR reports its clicks in its own coordinates, while clicks on a panel stay tai\'s', async () => {
    const r = rig();
    const id = r.s().open({ label: 'agent' }, T0);
    r.m.main.write('\x1b[?1000h\x1b[?1006h');
    await r.m.main.parsed();
    r.type(sgr(0, 10, 5) + sgr(0, 10, 5, true) + sgr(WHEEL_UP, 3, 3));
    expect(r.sent).toEqual([sgr(0, 10, 5), sgr(0, 10, 5, true), sgr(WHEEL_UP, 3, 3)]);
    expect(r.s().scrollback).toBe(0); // the wheel was the program's
    r.type(sgr(0, 90, 12));
    expect(r.s().focus).toBe(id);
    expect(r.sent).toHaveLength(3);
    r.type(sgr(2, 20, 7));
    expect(r.s().focus).toBe('main'); // a click into the main pane focuses it and reaches the program
    expect(r.sent.at(-1)).toBe(sgr(2, 20, 7));
    expect(r.typed).toEqual([]);
  });

  it('sends the default X10 bytes to a program that asked for the mouse without SGR, and stops when it switches it off', async () => {
    const r = rig();
    r.m.main.write('\x1b[?1000h');
    await r.m.main.parsed();
    r.type(sgr(0, 10, 5) + sgr(0, 10, 5, true));
    expect(r.sent).toEqual(['\x1b[M *%', '\x1b[M#*%']);
    r.m.main.write('\x1b[?1000l');
    await r.m.main.parsed();
    r.type(sgr(0, 10, 5));
    expect(r.sent).toHaveLength(2);
  });

  it('keeps a drag that started in the main program there, clamped to its pane, until the release', async () => {
    const r = rig();
    r.s().open({ label: 'agent' }, T0);
    r.m.main.write('\x1b[?1002h\x1b[?1006h');
    await r.m.main.parsed();
    r.type(sgr(0, 60, 5) + sgr(32, 100, 50) + sgr(0, 100, 50, true));
    // Clamped to the main pane: 66 columns, 39 rows (the window's last row is the status line).
    expect(r.sent).toEqual([sgr(0, 60, 5), sgr(32, 66, 39), sgr(0, 66, 39, true)]);
    expect(r.s().focus).toBe('main');
  });

  it('keeps the wheel tai\'s while the main pane is scrolled back, even when its program wants the mouse', async () => {
    const r = rig();
    await fill(r, 50);
    r.type(`${DEFAULT_PREFIX}\x1b[5~`);
    expect(r.s().scrollback).toBeGreaterThan(3);
    const back = r.s().scrollback;
    r.m.main.write('\x1b[?1000h\x1b[?1006h');
    await r.m.main.parsed();
    r.type(sgr(WHEEL_DOWN, 10, 10));
    expect(r.s().scrollback).toBe(back - 3);
    expect(r.sent).toEqual([]);
  });
});
