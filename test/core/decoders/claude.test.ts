import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ClaudeDecoder } from '../../../src/core/decoders/claude.js';
import { JsonLines } from '../../../src/core/decoders/json-lines.js';

const recorded = readFileSync(new URL('../../fixtures/claude-session.jsonl', import.meta.url), 'utf8');

describe('the Claude stream-json decoder', () => {
  it('maps a recorded session to exact events, whatever the chunking', () => {
    const whole = new JsonLines(new ClaudeDecoder()).push(recorded);
    const bytes = Buffer.from(recorded);
    const split = new JsonLines(new ClaudeDecoder());
    const events = [];
    for (let i = 0; i < bytes.length; i += 7) events.push(...split.push(bytes.subarray(i, i + 7)).events);
    expect(events).toEqual(whole.events);
    expect(whole.events.map((e) => e.type)).toEqual([
      'note', 'thought', 'usage', 'text', 'usage', 'tool_start', 'usage', 'tool_end', 'note', 'note',
      'tool_start', 'usage', 'tool_end', 'text', 'usage', 'usage',
    ]);
    expect(whole.events[5]).toEqual({
      type: 'tool_start',
      name: 'Bash',
      args: '{"command":"GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789 gh repo view","description":"Show the repository"}',
      id: 'toolu_01R',
    });
    expect(whole.events[12]).toEqual({ type: 'tool_end', name: 'Read', result: '<tool_use_error>File does not exist.</tool_use_error>', failed: true, id: 'toolu_01S' });
    expect(whole.events[8]).toEqual({ type: 'note', text: 'API retry 1/10 after HTTP 429 (rate_limit)' });
    expect(whole.events[14]).toEqual({ type: 'usage', tokens: 186 });
    expect(whole.events[15]).toEqual({ type: 'usage', tokens: 195 });
    expect(whole.text).toBe("I'll read the README first.The repository is demo/tai: a terminal cockpit.");
  });

  it('reports the end of the turn from the result line', () => {
    const d = new ClaudeDecoder();
    expect(d.end).toBeUndefined();
    d.message({ type: 'result', subtype: 'success', is_error: false, num_turns: 2, result: 'the answer' });
    expect(d.end).toEqual({ state: 'done', summary: '2 turns', text: 'the answer' });
    const e = new ClaudeDecoder();
    const out = e.message({ type: 'result', subtype: 'error_max_turns', is_error: true });
    expect(e.end).toEqual({ state: 'failed', summary: 'error_max_turns' });
    expect(out.events).toEqual([{ type: 'error', text: 'error_max_turns' }]);
  });

  it('never says the subtype success of a failed result (Claude Code 2.1 marks API errors so)', () => {
    const d = new ClaudeDecoder();
    const out = d.message({ type: 'result', subtype: 'success', is_error: true, api_error_status: 429, result: 'API Error: Request rejected (429) · Too many\nsecond line' });
    expect(d.end).toEqual({ state: 'failed', summary: 'HTTP 429: API Error: Request rejected (429) · Too many' });
    expect(out.events).toEqual([{ type: 'error', text: 'HTTP 429: API Error: Request rejected (429) · Too many' }]);
    const e = new ClaudeDecoder();
    e.message({ type: 'result', subtype: 'success', is_error: true, result: 'API Error: Unable to connect to API (ConnectionRefused)' });
    expect(e.end?.summary).toBe('API Error: Unable to connect to API (ConnectionRefused)');
  });

  it('tells the interrupt tai asked for as a note, not an error', () => {
    const d = new ClaudeDecoder();
    d.stopAsked();
    const out = d.message({ type: 'result', subtype: 'error_during_execution', is_error: true, num_turns: 1 });
    expect(d.end).toEqual({ state: 'failed', summary: 'interrupted' });
    expect(out.events).toEqual([{ type: 'note', text: 'interrupted' }]);
    const unasked = new ClaudeDecoder();
    expect(unasked.message({ type: 'result', subtype: 'error_during_execution', is_error: true }).events).toEqual([{ type: 'error', text: 'error_during_execution' }]);
  });

  it('streams partial messages and then skips the text they repeat', () => {
    const d = new ClaudeDecoder();
    const delta = (type: string, key: string, value: string) => ({ type: 'stream_event', event: { type: 'content_block_delta', index: 0, delta: { type, [key]: value } } });
    expect(d.message(delta('text_delta', 'text', 'Hel')).events).toEqual([{ type: 'text', text: 'Hel' }]);
    expect(d.message(delta('thinking_delta', 'thinking', 'hm')).events).toEqual([{ type: 'thought', text: '\nhm' }]);
    const whole = d.message({ type: 'assistant', message: { content: [{ type: 'text', text: 'Hello' }] } });
    expect(whole).toEqual({ events: [], text: 'Hello' });
  });

  it('shows a line that is not JSON as a note and refuses an over-long line', () => {
    const lines = new JsonLines(new ClaudeDecoder(), 50);
    expect(lines.push('warning: something\n').events).toEqual([{ type: 'note', text: 'warning: something' }]);
    const long = `{"type":"assistant","message":{"content":[{"type":"text","text":"${'x'.repeat(100)}"}]}}`;
    expect(lines.push(`${long}\n`).events).toEqual([{ type: 'error', text: `skipped a message of ${long.length} characters: over the 50 limit` }]);
  });
});
