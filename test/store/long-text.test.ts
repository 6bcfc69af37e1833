import { describe, expect, it } from 'vitest';
import { createBoard } from '../../store/board.js';
import { FORMAT_BACKLOG_MAX, FORMAT_FLUSH, FORMAT_SLICE } from '../../src/core/panel/formatter.js';
import { xtermScreens, type XtermScreen } from '../../src/io/terminal/screen.js';

/** 1 MiB of 0xFF bytes as an agent's output decodes: a run of U+FFFD without a space. */
const FF_MIB = new TextDecoder().decode(new Uint8Array(1 << 20).fill(0xff));

/**
 * A run without spaces mixing scripts and emoji sequences: combining marks,
 * Devanagari conjuncts, Thai, Arabic, Hangul jamo, ZWJ families, flags, skin
 * tones, keycaps, CJK, controls the sanitizer drops and lone surrogates; from a
 * seeded generator, so every run is the same text.
 */
function mixedRun(units: number): string {
  const atoms = ['e\u0301', 'n\u0303\u0323', 'क्षि', 'गु', 'กิ่', 'سلام', '\u1100\u1161\u11a8', '👨‍👩‍👧‍👦', '🇫🇷', '👍🏽', '1️⃣', '漢字', 'ｶﾞ', '\ufffd', '\u200d', '\u0301', '\ud800', 'x', '\u2028', '🏳️‍🌈', 'Ω'];
  let seed = 42;
  const next = (): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed;
  };
  let s = '';
  while (s.length < units) s += atoms[next() % atoms.length];
  return s;
}

/** Opens an agent's panel, emits `text` as one event and a note after it, and flushes until done; the most units formatted by any one call. */
async function feed(text: string): Promise<{ worst: number; total: number; screen: string[]; dropped: number }> {
  const board = createBoard({ createScreen: xtermScreens, cols: 120, rows: 40 });
  let t = 1_000;
  const id = board.getState().open({ label: 'flood', task: 'print' }, t);
  let worst = 0;
  const step = (call: () => void): void => {
    const before = board.counters.formatted;
    call();
    worst = Math.max(worst, board.counters.formatted - before);
  };
  step(() => board.getState().emit(id, { type: 'text', text }, t));
  step(() => board.getState().emit(id, { type: 'note', text: 'after the flood' }, t));
  for (let n = 0; board.getState().pending() && n < 100_000; n++) {
    t += 25;
    step(() => board.getState().flush(t));
  }
  const screen = board.getState().screenOf(id) as XtermScreen;
  await screen.parsed();
  const dropped = board.getState().status(t).agents[0]?.droppedBytes ?? 0;
  return { worst, total: board.counters.formatted, screen: screen.text(), dropped };
}

describe('a long text without spaces in a panel', () => {
  it('is formatted a slice a flush: no single call walks more than FORMAT_SLICE units of 1 MiB of 0xFF; what the panel cannot keep up with is skipped and said, and the order holds', async () => {
    const { worst, total, screen, dropped } = await feed(FF_MIB);
    // Before: the one emit walked the whole MiB (1,048,576 units) while the loop waited.
    expect(worst).toBeLessThanOrEqual(FORMAT_SLICE);
    expect(total).toBeGreaterThanOrEqual(FORMAT_BACKLOG_MAX / 2);
    expect(total).toBeLessThanOrEqual(FORMAT_BACKLOG_MAX + FORMAT_SLICE);
    expect(dropped).toBeGreaterThan(0);
    const last = screen.filter((l) => l.trim() !== '').at(-1);
    expect(last).toContain('after the flood');
  });

  it('formats at most FORMAT_FLUSH units a flush, half a slice, and still ends with what came after the flood', async () => {
    for (const text of [FF_MIB, mixedRun(64 * 1024)]) {
      const { worst, screen } = await feed(text);
      expect(worst).toBeLessThanOrEqual(FORMAT_FLUSH);
      expect(FORMAT_FLUSH).toBeLessThan(FORMAT_SLICE);
      expect(screen.join('\n')).toContain('after the flood');
    }
  });

  it('bounds the slice the same way for a generated mix of scripts and emoji sequences', async () => {
    const mix = mixedRun(256 * 1024);
    const { worst, total, screen } = await feed(mix);
    expect(worst).toBeLessThanOrEqual(FORMAT_SLICE);
    expect(total).toBeGreaterThanOrEqual(mix.length);
    expect(screen.join('\n')).toContain('after the flood');
  });
});
