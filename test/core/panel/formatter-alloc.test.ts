import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/core/events.js';
import { Formatter } from '../../../src/core/panel/formatter.js';
import { bytesPerItem } from '../../helpers/allocated.js';

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

describe('the formatter on a token stream', () => {
  it('allocates at most 2,500 bytes an event of ten words (a word of plain text makes no piece and no held word)', () => {
    const next = tokens();
    const f = new Formatter(72);
    for (let i = 0; i < 20_000; i++) f.event(next());
    const perEvent = bytesPerItem(40, () => Array.from({ length: 200 }, next), (ev) => f.event(ev));
    // A piece and a held word a word took about 4,000 bytes an event.
    expect(perEvent).toBeLessThanOrEqual(2_500);
  });
});
