import { describe, expect, it } from 'vitest';
import { acpFailure, AcpDecoder } from '../../../src/core/decoders/acp.js';
import { classify, type Classification } from '../../../src/core/outage/classify.js';

describe('the ACP session/update decoder', () => {
  it('maps chunks, tool calls, plans, usage and notices', () => {
    const d = new AcpDecoder();
    expect(d.update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Hi' } })).toEqual({ events: [{ type: 'text', text: 'Hi' }], text: 'Hi' });
    expect(d.update({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'hm' } }).events).toEqual([{ type: 'thought', text: '\nhm' }]);
    expect(d.update({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'me' } }).events).toEqual([]);
    expect(d.update({ sessionUpdate: 'tool_call', toolCallId: 't', title: 'Edit a.ts', status: 'pending', locations: [{ path: 'a.ts' }] }).events).toEqual([
      { type: 'tool_start', name: 'Edit a.ts', args: 'a.ts', id: 't' },
    ]);
    expect(d.update({ sessionUpdate: 'tool_call_update', toolCallId: 't', status: 'in_progress' }).events).toEqual([]);
    expect(d.update({ sessionUpdate: 'tool_call_update', toolCallId: 't', status: 'failed', content: [{ type: 'diff', path: 'a.ts', newText: '' }] }).events).toEqual([
      { type: 'tool_end', name: 'Edit a.ts', result: 'diff a.ts', failed: true, id: 't' },
    ]);
    expect(d.update({ sessionUpdate: 'plan', entries: [{ content: 'x', priority: 'high', status: 'pending' }] }).events).toEqual([{ type: 'plan', entries: ['[pending] x'] }]);
    expect(d.update({ sessionUpdate: 'usage_update', used: 99, size: 1000 }).events).toEqual([{ type: 'usage', tokens: 99 }]);
    expect(d.update({ sessionUpdate: 'notice', severity: 'error', title: 'quota', description: 'used up' }).events).toEqual([{ type: 'error', text: 'quota: used up' }]);
    expect(d.update({ sessionUpdate: 'available_commands_update', availableCommands: [] }).events).toEqual([]);
  });

  it('ends a tool call that arrives already completed', () => {
    const d = new AcpDecoder();
    expect(d.update({ sessionUpdate: 'tool_call', toolCallId: 'q', title: 'grep', status: 'completed', rawInput: { p: 1 }, rawOutput: { n: 0 } }).events).toEqual([
      { type: 'tool_start', name: 'grep', args: '{"p":1}', id: 'q' },
      { type: 'tool_end', name: 'grep', result: '{"n":0}', failed: false, id: 'q' },
    ]);
  });
});

describe('the failure of an ACP turn, as the one classifier sorts it', () => {
  const NOW = Date.UTC(2026, 9, 9, 23, 0, 0);
  const table: readonly [string, unknown, Classification][] = [
    ['an ACP rate_limit', { code: -32603, message: 'Internal error', data: { errorKind: 'rate_limit' } },
      { kind: 'rate_limit', detail: 'errorKind rate_limit: Internal error' }],
    ['an ACP overloaded', { code: -32603, message: 'Internal error', data: { errorKind: 'overloaded' } },
      { kind: 'model', detail: 'errorKind overloaded: Internal error' }],
    ['an ACP transport_lost', { code: -32603, message: 'Internal error', data: { errorKind: 'transport_lost' } },
      { kind: 'network', detail: 'errorKind transport_lost: Internal error' }],
    ['an ACP error thrown by the client', Object.assign(new Error('Internal error'), { code: -32603, data: { errorKind: 'transport_lost' } }),
      { kind: 'network', detail: 'errorKind transport_lost: Internal error' }],
    ['Gemini\'s JSON-RPC 429', { code: 429, message: 'Resource has been exhausted (e.g. check quota).' },
      { kind: 'rate_limit', detail: 'code 429: Resource has been exhausted (e.g. check quota).' }],
    ['a JSON-RPC response carrying the error', { jsonrpc: '2.0', id: 3, error: { code: -32603, message: 'Internal error', data: { errorKind: 'overloaded' } } },
      { kind: 'model', detail: 'errorKind overloaded: Internal error' }],
    ['codex-acp over its usage limit',
      { code: -32603, message: "You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) or try again in 2 hours 5 minutes.", data: { codexErrorInfo: 'usageLimitExceeded' } },
      { kind: 'rate_limit', detail: "usageLimitExceeded: You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) or try again in 2 hours 5 minutes.", resetAt: NOW + 125 * 60_000 }],
    ['codex-acp unable to connect', { code: -32603, message: 'stream error', data: { codexErrorInfo: { httpConnectionFailed: { httpStatusCode: null } } } },
      { kind: 'network', detail: 'httpConnectionFailed: stream error' }],
    ['codex-acp disconnected with a 503', { code: -32603, message: 'stream error', data: { codexErrorInfo: { responseStreamDisconnected: { httpStatusCode: 503 } } } },
      { kind: 'model', detail: 'responseStreamDisconnected HTTP 503: stream error' }],
    ['codex-acp overloaded', { code: -32603, message: 'server overloaded', data: { codexErrorInfo: 'serverOverloaded' } },
      { kind: 'model', detail: 'serverOverloaded: server overloaded' }],
    ['codex-acp 0.16 with a 500 (snake case)',
      { code: -32603, message: 'Internal error', data: { message: 'We’re currently experiencing high demand, which may cause temporary errors.', codex_error_info: 'internal_server_error' } },
      { kind: 'model', detail: 'internalServerError: Internal error' }],
    ['codex-acp 0.16 over its retries after 429s (snake case)',
      { code: -32603, message: 'Internal error', data: { message: 'exceeded retry limit, last status: 429 Too Many Requests', codex_error_info: { response_too_many_failed_attempts: { http_status_code: 429 } } } },
      { kind: 'rate_limit', detail: 'responseTooManyFailedAttempts HTTP 429: Internal error' }],
    ['opencode acp on a 500', { code: -32603, message: 'Internal error: The server had an error while processing your request.', data: { service: 'session', errorName: 'APIError' } },
      { kind: 'model', detail: 'Internal error: The server had an error while processing your request.' }],
    ['an Anthropic error body, its type said first', { type: 'overloaded_error', message: 'Overloaded', code: -32603 },
      { kind: 'model', detail: 'overloaded_error: Overloaded' }],
    ['an agent error nobody knows', { code: -32602, message: 'Invalid params' }, { kind: 'other', detail: 'Invalid params' }],
    ['the SDK\'s closed connection, a thrown error like any', new Error('ACP connection closed'), { kind: 'other', detail: 'ACP connection closed' }],
    ['a lost connection thrown by Node', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }), { kind: 'network', detail: 'read ECONNRESET' }],
  ];

  it.each(table)('classifies %s', (_name, thrown, expected) => {
    expect(classify(acpFailure(thrown), NOW)).toEqual(expected);
  });

  it('reads the reset time in the words of an ACP error that names errorKind rate_limit', () => {
    const thrown = { code: -32603, message: 'Claude AI usage limit reached|1791601200', data: { errorKind: 'rate_limit' } };
    expect(classify(acpFailure(thrown), NOW)).toEqual({
      kind: 'rate_limit',
      detail: 'errorKind rate_limit: Claude AI usage limit reached|1791601200',
      resetAt: 1_791_601_200_000,
    });
  });

  it('reads the reset time of an ACP rate_limit thrown by the client, as the acp runner sees it', () => {
    const error = Object.assign(new Error("You've hit your limit · resets 2pm (Asia/Shanghai)"), { code: -32603, data: { errorKind: 'rate_limit' } });
    expect(classify(acpFailure(error), NOW)).toEqual({
      kind: 'rate_limit',
      detail: "errorKind rate_limit: You've hit your limit · resets 2pm (Asia/Shanghai)",
      resetAt: Date.UTC(2026, 9, 10, 6, 0),
    });
  });

  it('keeps an ACP rate_limit without a reset time in its words as it is', () => {
    const thrown = { code: -32603, message: 'Internal error', data: { errorKind: 'rate_limit' } };
    expect(classify(acpFailure(thrown), NOW)).toEqual({ kind: 'rate_limit', detail: 'errorKind rate_limit: Internal error' });
  });

  it('turns Gemini\'s retryDelay into a reset time', () => {
    const thrown = { code: 429, message: 'RESOURCE_EXHAUSTED {"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"17s"}' };
    expect(classify(acpFailure(thrown), NOW).resetAt).toBe(NOW + 17_000);
  });
});

describe("codex-acp's errors while its turn goes on", () => {
  const info = (message: string): unknown => ({ sessionUpdate: 'session_info_update', _meta: { codex: { error: { message } } } });

  it.each([
    ['Reconnecting... waiting for network (Connection failed: error sending request)', true, 'network'],
    ['Reconnecting... 1/1: responseStreamDisconnected', false, 'other'],
    ['We’re currently experiencing high demand, which may cause temporary errors.', false, 'model'],
  ])('"%s" marks the turn lost: %s, and the classifier says %s', (message, lost, kind) => {
    const decoder = new AcpDecoder();
    expect(decoder.update(info(message)).events).toEqual([{ type: 'error', text: message }]);
    expect(decoder.lost).toBe(lost);
    expect(classify(acpFailure(decoder.failure)).kind).toBe(kind);
  });
});
