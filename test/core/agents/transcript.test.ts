import { describe, expect, it } from 'vitest';
import { TranscriptFormatter } from '../../../src/core/agents/transcript.js';
import { emptyCap, place, TRANSCRIPT_HEAD_BYTES, TRANSCRIPT_TAIL_BYTES, utf8Bytes } from '../../../src/core/agents/transcript-cap.js';

describe('the plain-text transcript', () => {
  it('writes every kind of event as plain lines without any escape sequence', () => {
    const f = new TranscriptFormatter();
    let out = f.opening('fix\nthe bug');
    out += f.event({ type: 'text', text: 'hello \x1b[31mred\x1b[0m \x1b[2J' });
    out += f.event({ type: 'thought', text: 'thinking\nmore' });
    out += f.event({ type: 'tool_start', name: 'Bash', args: 'ls -la' });
    out += f.event({ type: 'tool_end', name: 'Bash', result: 'a\nb\nc\nd', failed: true });
    out += f.event({ type: 'plan', entries: ['one', 'two'] });
    out += f.event({ type: 'note', text: 'a note' });
    out += f.event({ type: 'error', text: 'an error' });
    out += f.event({ type: 'usage', tokens: 5 });
    out += f.event({ type: 'text', text: 'unfinished' });
    out += f.footer('timeout', 61_000, 'wall clock');
    expect(out).toBe(
      '▸ fix the bug\n\nhello red \n~ thinking\n~ more\n⏺ Bash(ls -la)\n⎿ a\n  b\n  c · 7 chars · failed\n▤ one\n  two\n· a note\n✗ an error\nunfinished\n\n⏱ timeout · 1m01s · wall clock\n',
    );
  });
});

describe('the cap of a stored transcript', () => {
  it('keeps the first half of the limit whole and the newest output in the second, counting what it cut', () => {
    const cap = emptyCap();
    const chunk = 'x'.repeat(999) + '\n';
    let inserted = 0;
    let dropped = 0;
    let cut = 0;
    for (let i = 0; i < 1_500; i++) {
      const plan = place(cap, chunk);
      inserted += plan.insert.length;
      dropped += plan.drop.length;
      cut += plan.cut;
    }
    expect(cap.headBytes).toBe(TRANSCRIPT_HEAD_BYTES);
    expect(cap.tailBytes).toBeLessThanOrEqual(TRANSCRIPT_TAIL_BYTES);
    expect(cap.tailBytes).toBeGreaterThan(TRANSCRIPT_TAIL_BYTES - 1_000);
    expect(cap.cut).toBe(cut);
    expect(cap.headBytes + cap.tailBytes + cap.cut).toBe(1_500 * 1_000);
    expect(inserted - dropped).toBe(cap.tail.length + Math.ceil(TRANSCRIPT_HEAD_BYTES / 1_000));
  });

  it('keeps only the end of one write larger than the whole tail, never splitting a character', () => {
    const cap = emptyCap();
    place(cap, 'h'.repeat(TRANSCRIPT_HEAD_BYTES));
    const plan = place(cap, '€'.repeat(TRANSCRIPT_TAIL_BYTES));
    const kept = plan.insert[0]?.text ?? '';
    expect(utf8Bytes(kept)).toBeLessThanOrEqual(TRANSCRIPT_TAIL_BYTES);
    expect(kept).toMatch(/^€+$/);
    expect(plan.cut).toBe(3 * TRANSCRIPT_TAIL_BYTES - utf8Bytes(kept));
  });
});
