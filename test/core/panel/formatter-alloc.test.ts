import v8 from 'node:v8';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/core/events.js';
import { Formatter } from '../../../src/core/panel/formatter.js';

/** Words as `tai demo`'s agents stream them (src/demo-agent.ts): ten a text event, a sentence every seven. */
const WORDS = ['the', 'agent', 'reads', 'the', 'code', 'then', 'plans', 'a', 'small', 'change', 'runs', 'the', 'tests', 'and', 'reports', 'what', 'it', 'found'];

function tokens(): () => AgentEvent {
  let n = 0;
  return () => {
    let text = '';
    for (let i = 0; i < 10; i++, n++) text += `${WORDS[n % WORDS.length]}${n % 7 === 6 ? '.\n' : ' '}`;
    return { type: 'text', text };
  };
}

/** Bytes the young generation took while `run` ran; undefined when a collection ran meanwhile (the count is then lost). */
function allocated(run: () => void): number | undefined {
  const used = (): number => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_used_size ?? 0;
  const before = used();
  run();
  const after = used();
  return after > before ? after - before : undefined;
}

describe('the formatter on a token stream', () => {
  it('allocates at most 2,500 bytes an event of ten words (a word of plain text makes no piece and no held word)', () => {
    const next = tokens();
    const f = new Formatter(72);
    for (let i = 0; i < 20_000; i++) f.event(next());
    const perEvent: number[] = [];
    for (let round = 0; round < 40; round++) {
      const events = Array.from({ length: 200 }, next);
      const bytes = allocated(() => {
        for (const ev of events) f.event(ev);
      });
      if (bytes !== undefined) perEvent.push(bytes / events.length);
    }
    perEvent.sort((a, b) => a - b);
    expect(perEvent.length).toBeGreaterThan(10);
    // A piece and a held word a word took about 4,000 bytes an event.
    expect(perEvent[perEvent.length >> 1]).toBeLessThanOrEqual(2_500);
  });
});
