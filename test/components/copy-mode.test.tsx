import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_PREFIX, KeyScanner } from '../../src/core/input/keys.js';
import { CopyView, COPY_MAX, tooLarge } from '../../src/io/cockpit/keys/copy-view.js';
import { routeKeys } from '../../src/io/cockpit/keys/key-router.js';
import { MentionController } from '../../src/io/cockpit/keys/mentions.js';
import { dispatch } from '../../store/dispatch.js';
import { createMentionPrompt } from '../../store/mention-prompt.js';
import { mountCockpit } from './harness.js';

const P = DEFAULT_PREFIX;
const T0 = 1_000_000;

let stop: (() => void) | undefined;
afterEach(() => {
  stop?.();
  stop = undefined;
});

/** The real cockpit on 80x10 with copy mode on the real key path; what it copied is kept. */
function rig() {
  const m = mountCockpit(80, 10);
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
  const copied: string[] = [];
  const keys = new KeyScanner(P);
  const copy = new CopyView({ board: m.board, main: m.main, dispatch: (c) => void dispatch(c, { board: m.board, now: T0 }), clipboard: (t) => copied.push(t), changed: () => m.source.dirty() });
  const type = routeKeys({ keys, board: m.board, mentions, dispatch: (c) => void dispatch(c, { board: m.board, now: T0 }), toMain: (d) => typed.push(d), copy });
  stop = () => m.unmount();
  return { m, type, typed, copied, copy, keys, s: () => m.board.getState() };
}

describe('copy mode in the cockpit', () => {
  it('searches the main pane\'s scrollback back for text, shows it, and copies a selection from it', async () => {
    const r = rig();
    r.m.main.write(Array.from({ length: 60 }, (_, i) => `line ${i} ${i % 7 === 0 ? 'needle' : 'hay'}`).join('\r\n'));
    await r.m.main.parsed();
    r.type(`${P}[`);
    expect(r.copy.active).toBe(true);
    r.type('/needle\r');
    // The nearest match back from the bottom: line 56; the view has not moved (it is on screen).
    expect(r.s().scrollback).toBe(0);
    r.type('n');
    r.type('n');
    await vi.waitFor(() => expect(r.m.text().join('\n')).toContain('line 42 needle'));
    expect(r.s().scrollback).toBeGreaterThan(0);
    r.type('0v$y');
    expect(r.copied).toEqual(['line 42 needle']);
    expect(r.copy.active).toBe(false);
    expect(r.s().scrollback).toBe(0); // back at the bottom, as tmux leaves copy mode
    r.type('ls');
    expect(r.typed).toEqual(['ls']); // keys pass again, and none went to the pane while copying
  });

  it('draws the selection inverted and the position at the pane\'s top right', async () => {
    const r = rig();
    r.m.main.write('first\r\nsecond\r\nthird');
    await r.m.main.parsed();
    r.type(`${P}[`);
    r.type('0v' + 'l'.repeat(3));
    const out = r.copy.decorate(r.m.source.overlays());
    const body = out.find((o) => o.x === 0 && o.y === 0)!;
    expect(body.rows[2]!.styles.slice(0, 5).map((s) => s !== '')).toEqual([true, true, true, true, false]);
    const status = out.at(-1)!;
    expect(status.rows[0]!.chars.join('')).toBe(' [3/10] ');
    expect(status.x + status.cols).toBe(80);
    expect(r.copy.cursor()).toEqual({ x: 3, y: 2 });
  });

  it('says a selection too large for the clipboard is too large, and copies nothing', async () => {
    const r = rig();
    const line = 'x'.repeat(80);
    r.m.main.write(`${line}\r\n`.repeat(Math.ceil(COPY_MAX / 80) + 20));
    await r.m.main.parsed();
    r.type(`${P}[`);
    r.type('Gv');
    r.type('g');
    r.type('y');
    expect(r.copied).toEqual([]);
    const out = r.copy.decorate(r.m.source.overlays());
    expect(out.at(-1)!.rows[0]!.chars.join('')).toContain(tooLarge(0).split(' (')[0]!);
    r.type('q');
    expect(r.copy.active).toBe(false);
  });

  it('moves the copy view with the wheel and ignores clicks while copying', async () => {
    const r = rig();
    r.m.main.write(Array.from({ length: 40 }, (_, i) => `row ${i}`).join('\r\n'));
    await r.m.main.parsed();
    r.type(`${P}[`);
    r.type('\x1b[<64;5;5M');
    expect(r.s().scrollback).toBe(3);
    r.type('\x1b[<0;5;5M');
    expect(r.copy.active).toBe(true);
    r.type('q');
    expect(r.s().scrollback).toBe(0);
  });
});
