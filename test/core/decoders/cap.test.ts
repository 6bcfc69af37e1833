import { describe, expect, it } from 'vitest';
import { capFailure, CapDecoder } from '../../../src/core/decoders/cap.js';
import { classify } from '../../../src/core/outage/classify.js';
import { TOOL_IDS_MAX } from '../../../src/core/decoders/recent-ids.js';

describe('the CAP decoder (docs/spec.md, "Event sources")', () => {
  it('maps each row of the table', () => {
    const d = new CapDecoder();
    const m = (o: unknown) => d.message(o).events;
    expect(m({ type: 'cap.text_chunk', text: 'hi' })).toEqual([{ type: 'text', text: 'hi\n' }]);
    expect(m({ type: 'cap.text_chunk', text: 'hm', channel: 'thought' })).toEqual([{ type: 'thought', text: 'hm\n' }]);
    expect(m({ type: 'cap.thought', text: 'so\n' })).toEqual([{ type: 'thought', text: 'so\n' }]);
    expect(m({ type: 'cap.tool_call.start', id: 'a', name: 'shell', input: { cmd: 'ls' } })).toEqual([{ type: 'tool_start', name: 'shell', args: '{"cmd":"ls"}', id: 'a' }]);
    expect(m({ type: 'cap.tool_call.end', id: 'a', output: 'x', is_error: true })).toEqual([{ type: 'tool_end', name: 'shell', result: 'x', failed: true, id: 'a' }]);
    expect(m({ type: 'cap.plan', entries: [{ status: 'done', content: 'a' }] })).toEqual([{ type: 'plan', entries: ['[done] a'] }]);
    expect(m({ type: 'cap.usage', input_tokens: 3, output_tokens: 4 })).toEqual([{ type: 'usage', tokens: 7 }]);
    expect(m({ type: 'cap.error', code: 'E1', message: 'bad' })).toEqual([{ type: 'error', text: 'E1: bad' }]);
    expect(m({ type: 'cap.ask_user', question: 'q?' })).toEqual([{ type: 'note', text: 'asks: q?' }]);
    expect(m({ type: 'cap.permission.request', tool: 'rm' })).toEqual([{ type: 'note', text: 'permission requested: rm' }]);
    expect(m({ type: 'cap.artifact', name: 'a.md' })).toEqual([{ type: 'note', text: 'artifact: a.md' }]);
    expect(m({ type: 'cap.unknown' })).toEqual([]);
    expect(d.end).toBeUndefined();
    d.message({ type: 'cap.turn.end', stop_reason: 'end_turn' });
    expect(d.end).toEqual({ state: 'done', summary: 'stop reason end_turn' });
  });

  it('remembers at most 256 tool call ids', () => {
    const d = new CapDecoder();
    for (let i = 0; i <= TOOL_IDS_MAX; i++) d.message({ type: 'cap.tool_call.start', id: `c${i}`, name: `tool${i}` });
    expect(d.message({ type: 'cap.tool_call.end', id: 'c0' }).events[0]).toMatchObject({ name: 'tool' });
    expect(d.message({ type: 'cap.tool_call.end', id: 'c1' }).events[0]).toMatchObject({ name: 'tool1' });
  });
});

describe('the failures a CAP stream reports', () => {
  it('reads each cap.error by its words, and code 429 as a rate limit', () => {
    const d = new CapDecoder();
    d.message({ type: 'cap.error', code: 'E1', message: 'connection refused' });
    d.message({ type: 'cap.error', code: 429, message: 'slow down' });
    d.message({ type: 'cap.text_chunk', text: 'rate limit' });
    expect(d.failures).toEqual([{ message: 'connection refused' }, { kind: 'rate_limit', named: 'code 429', message: 'slow down' }]);
    expect(d.failures.map((agent) => classify({ agent }).kind)).toEqual(['network', 'rate_limit']);
    expect(capFailure({ type: 'cap.turn.end', stop_reason: 'error' })).toBeUndefined();
  });
});
