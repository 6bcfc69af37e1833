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
      `${text.slice(0, CLAIM_HEAD)}\n\n[... 5000 characters omitted; the whole result (10000 characters) is record rabc: tai record read rabc --offset ${CLAIM_HEAD} --limit 5000 ...]\n\n${text.slice(10_000 - CLAIM_TAIL)}`,
    );
  });

  it('never splits a surrogate pair', () => {
    expect(headOf('a😀b', 2)).toBe('a😀');
    expect(tailOf('a😀b', 2)).toBe('😀b');
    expect(codePoints('a😀b')).toBe(3);
  });
});
