import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { claudeFailure, ClaudeDecoder } from '../../../src/core/decoders/claude.js';
import { classify, classifyEvidence, type Classification } from '../../../src/core/outage/classify.js';
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
      'note', 'session', 'thought', 'usage', 'text', 'usage', 'tool_start', 'usage', 'tool_end', 'note', 'note',
      'tool_start', 'usage', 'tool_end', 'text', 'usage', 'usage',
    ]);
    expect(whole.events[1]).toEqual({ type: 'session', id: '5f0c1a2e-7d7b-4c59-9d3e-0c6a1f7f2b11' });
    expect(whole.events[6]).toEqual({
      type: 'tool_start',
      name: 'Bash',
      args: '{"command":"GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789 gh repo view","description":"Show the repository"}',
      id: 'toolu_01R',
    });
    expect(whole.events[13]).toEqual({ type: 'tool_end', name: 'Read', result: '<tool_use_error>File does not exist.</tool_use_error>', failed: true, id: 'toolu_01S' });
    expect(whole.events[9]).toEqual({ type: 'note', text: 'API retry 1/10 after HTTP 429 (rate_limit)' });
    expect(whole.events[15]).toEqual({ type: 'usage', tokens: 186 });
    expect(whole.events[16]).toEqual({ type: 'usage', tokens: 195 });
    expect(whole.text).toBe("I'll read the README first.The repository is demo/tai: a terminal cockpit.");
  });

  it('reports the session id of the init message as a session event after its note, and none when the init has no id', () => {
    const d = new ClaudeDecoder();
    expect(d.message({ type: 'system', subtype: 'init', model: 'm', session_id: 's-1' }).events).toEqual([
      { type: 'note', text: 'claude m · session s-1' },
      { type: 'session', id: 's-1' },
    ]);
    expect(new ClaudeDecoder().message({ type: 'system', subtype: 'init', model: 'm' }).events).toEqual([{ type: 'note', text: 'claude m · session ?' }]);
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
    expect(lines.push(`${long}\n`).events).toEqual([{ type: 'error', text: 'skipped a message over the 50-byte limit' }]);
  });
});

describe('the failures a Claude stream reports, as the one classifier sorts them', () => {
  const NOW = Date.UTC(2026, 9, 9, 23, 0, 0);
  const table: readonly [string, unknown, Classification][] = [
    ['the result with a 429',
      { type: 'result', subtype: 'success', is_error: true, api_error_status: 429, result: 'API Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed your rate limit"}}' },
      { kind: 'rate_limit', detail: 'HTTP 429: rate_limit_error: This request would exceed your rate limit' }],
    ['the result with a 529',
      { type: 'result', subtype: 'success', is_error: true, api_error_status: 529, result: 'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}' },
      { kind: 'model', detail: 'HTTP 529: overloaded_error: Overloaded' }],
    ['the result after losing the connection',
      { type: 'result', subtype: 'success', is_error: true, api_error_status: null, result: 'API Error: Connection error.' },
      { kind: 'network', detail: 'API Error: Connection error.' }],
    ['a turn that ran out of turns', { type: 'result', subtype: 'error_max_turns', is_error: false, num_turns: 3 },
      { kind: 'other', detail: 'result error_max_turns' }],
    ['a retry of a 529', { type: 'system', subtype: 'api_retry', attempt: 2, error_status: 529, error: 'overloaded_error' },
      { kind: 'model', detail: 'HTTP 529: overloaded_error' }],
    ['a retry after a connection error', { type: 'system', subtype: 'api_retry', attempt: 1, error_status: null, error: 'Connection error.' },
      { kind: 'network', detail: 'Connection error.' }],
    ['a rejected rate_limit_event',
      { type: 'rate_limit_event', rate_limit_info: { status: 'rejected', resetsAt: 1778565600, rateLimitType: 'five_hour' } },
      { kind: 'rate_limit', detail: 'rate limit rejected (five_hour)', resetAt: 1_778_565_600_000 }],
    ['an assistant message with error rate_limit', { type: 'assistant', message: { content: [] }, error: 'rate_limit' },
      { kind: 'rate_limit', detail: 'assistant error: rate_limit' }],
    ['an assistant message with error server_error', { type: 'assistant', message: { content: [] }, error: 'server_error' },
      { kind: 'model', detail: 'assistant error: server_error' }],
    ['an assistant message with another error', { type: 'assistant', message: { content: [] }, error: 'authentication_failed' },
      { kind: 'other', detail: 'assistant error: authentication_failed' }],
  ];

  it.each(table)('classifies %s', (_name, msg, expected) => {
    const failure = claudeFailure(msg);
    if (failure === undefined) throw new Error('no failure read');
    expect(classify({ agent: failure }, NOW)).toEqual(expected);
  });

  it('reads no failure in a successful result, an allowed rate_limit_event or plain output', () => {
    expect(claudeFailure({ type: 'result', subtype: 'success', is_error: false, result: 'done' })).toBeUndefined();
    expect(claudeFailure({ type: 'rate_limit_event', rate_limit_info: { status: 'allowed_warning' } })).toBeUndefined();
    expect(claudeFailure({ type: 'assistant', message: { content: [{ type: 'text', text: 'rate limit' }] } })).toBeUndefined();
    expect(claudeFailure({ type: 'system', subtype: 'init' })).toBeUndefined();
  });

  it('keeps the last four failures it decoded, so the 429 result takes the reset time of the rejected event before it', () => {
    const d = new ClaudeDecoder();
    for (let attempt = 1; attempt <= 4; attempt++) d.message({ type: 'system', subtype: 'api_retry', attempt, error_status: 429, error: 'rate_limit_error' });
    d.message({ type: 'rate_limit_event', rate_limit_info: { status: 'rejected', resetsAt: 1791601200 } });
    d.message({ type: 'result', subtype: 'success', is_error: true, api_error_status: 429, result: 'API Error: 429 rate_limit_error' });
    expect(d.failures).toHaveLength(4);
    const evidence = [...d.failures].reverse().map((agent) => ({ agent }));
    expect(classifyEvidence(evidence, NOW)).toEqual({ kind: 'rate_limit', detail: 'HTTP 429: API Error: 429 rate_limit_error', resetAt: 1_791_601_200_000 });
  });
});
