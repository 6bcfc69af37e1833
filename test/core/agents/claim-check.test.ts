import { describe, expect, it } from 'vitest';
import { CLAIM_HEAD, CLAIM_TAIL, claimCheckView, codePoints, headOf, needsRecord, tailOf } from '../../../src/core/agents/claim-check.js';
import { SPILL_LIMIT } from '../../../src/core/policy.js';

describe('the claim check view', () => {
  it('spills only results longer than SPILL_LIMIT', () => {
    expect(needsRecord('x'.repeat(SPILL_LIMIT))).toBe(false);
    expect(needsRecord('x'.repeat(SPILL_LIMIT + 1))).toBe(true);
    // Counted in code points: 6000 emoji are 12000 UTF-16 units but not over the limit.
    expect(needsRecord('😀'.repeat(SPILL_LIMIT))).toBe(false);
  });

  it('hands back the exact head, a line naming the record, and the exact tail', () => {
    const text = Array.from({ length: 10_000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join('');
    const view = claimCheckView(text, 'rabc');
    expect(view).toBe(
      `${text.slice(0, CLAIM_HEAD)}\n\n[... 5000 characters omitted; the whole result (10000 characters) is record rabc: tai record read rabc --all (the omitted part: --offset ${CLAIM_HEAD} --limit 5000) ...]\n\n${text.slice(10_000 - CLAIM_TAIL)}`,
    );
  });

  it('cuts the head and the tail at a line end when one is within a fifth of the cut', () => {
    // Lines of 100 characters (99 and a newline) between 'abc' and 'de\n': the plain cuts fall 97 into line 24 and 3 into line 75.
    const lines = Array.from({ length: 100 }, (_, i) => `${String(i).padStart(3, '0')} `.padEnd(99, 'x'));
    const text = `${lines.join('\n')}\n`;
    const shifted = `abc${text}de\n`;
    const view = claimCheckView(shifted, 'rl');
    const [head, tail] = view.split(/\n\n\[\.\.\. .*\.\.\.\]\n\n/);
    expect(head).toBe(`abc${lines.slice(0, 24).join('\n')}\n`);
    expect(tail).toBe(`${lines.slice(76).join('\n')}\nde\n`);
    expect(view).toContain(`[... ${shifted.length - head!.length - tail!.length} characters omitted;`);
    expect(view).toContain(`--offset ${head!.length} --limit ${shifted.length - head!.length - tail!.length})`);
  });

  it('cuts mid-line when no line ends near the cut', () => {
    const text = `${'y'.repeat(1000)}\n${'z'.repeat(9000)}\n`;
    const view = claimCheckView(text, 'rm');
    expect(view.startsWith(`${'y'.repeat(1000)}\n${'z'.repeat(CLAIM_HEAD - 1001)}\n\n[... `)).toBe(true);
    expect(view.endsWith(`...]\n\n${'z'.repeat(CLAIM_TAIL - 1)}\n`)).toBe(true);
  });

  it('measures the slack in code points, as every length is', () => {
    // The head's last line end leaves 449 emoji after it: within a fifth of 2500 code points, not of 2949 UTF-16 units.
    const text = `${'a'.repeat(2050)}\n${'😀'.repeat(449)}${'b'.repeat(5000)}`;
    const view = claimCheckView(text, 'ru');
    expect(view.startsWith(`${'a'.repeat(2050)}\n\n\n[... `)).toBe(true);
    // The tail's first line end is 600 code points in (1200 units): past a fifth of 2500 either way, so it stays whole.
    const tailText = `${'c'.repeat(5000)}${'😀'.repeat(599)}\n${'d'.repeat(1900)}`;
    expect(claimCheckView(tailText, 'rt').endsWith(`...]\n\n${'😀'.repeat(599)}\n${'d'.repeat(1900)}`)).toBe(true);
  });

  it('never splits a surrogate pair', () => {
    expect(headOf('a😀b', 2)).toBe('a😀');
    expect(tailOf('a😀b', 2)).toBe('😀b');
    expect(codePoints('a😀b')).toBe(3);
  });
});
