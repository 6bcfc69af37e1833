import { describe, expect, it } from 'vitest';
import { codexFailure, CodexDecoder } from '../../../src/core/decoders/codex.js';
import { classify, type Classification } from '../../../src/core/outage/classify.js';

describe('the Codex exec --json decoder', () => {
  it('maps items to tool calls, thoughts, plans and text, and turn.completed to usage and the end', () => {
    const d = new CodexDecoder();
    const m = (o: unknown) => d.message(o).events;
    expect(m({ type: 'thread.started', thread_id: 't1' })).toEqual([{ type: 'note', text: 'codex thread t1' }, { type: 'session', id: 't1' }]);
    expect(new CodexDecoder().message({ type: 'thread.started' }).events).toEqual([{ type: 'note', text: 'codex thread ?' }]);
    expect(m({ type: 'turn.started' })).toEqual([]);
    expect(m({ type: 'item.started', item: { id: 'i0', type: 'command_execution', command: 'ls', status: 'in_progress' } })).toEqual([
      { type: 'tool_start', name: 'shell', args: 'ls', id: 'i0' },
    ]);
    expect(m({ type: 'item.completed', item: { id: 'i0', type: 'command_execution', command: 'ls', aggregated_output: '', exit_code: 2, status: 'failed' } })).toEqual([
      { type: 'tool_end', name: 'shell', result: 'exit 2', failed: true, id: 'i0' },
    ]);
    expect(m({ type: 'item.completed', item: { id: 'i1', type: 'file_change', changes: [{ path: 'a.ts', kind: 'update' }], status: 'completed' } })).toEqual([
      { type: 'tool_start', name: 'apply_patch', args: 'update a.ts', id: 'i1' },
      { type: 'tool_end', name: 'apply_patch', result: 'update a.ts', failed: false, id: 'i1' },
    ]);
    expect(m({ type: 'item.updated', item: { id: 'i2', type: 'todo_list', items: [{ text: 'a', completed: true }, { text: 'b', completed: false }] } })).toEqual([
      { type: 'plan', entries: ['[done] a', '[todo] b'] },
    ]);
    expect(d.message({ type: 'item.completed', item: { id: 'i3', type: 'agent_message', text: 'one' } })).toEqual({ events: [{ type: 'text', text: 'one' }], text: 'one' });
    expect(d.message({ type: 'item.completed', item: { id: 'i4', type: 'agent_message', text: 'two' } }).text).toBe('\n\ntwo');
    expect(m({ type: 'turn.completed', usage: { input_tokens: 10, cached_input_tokens: 5, output_tokens: 2 } })).toEqual([{ type: 'usage', tokens: 12 }]);
    expect(m({ type: 'turn.completed', usage: { input_tokens: 1, output_tokens: 1 } })).toEqual([{ type: 'usage', tokens: 14 }]);
    expect(d.end).toEqual({ state: 'done', summary: 'turn completed' });
  });

  it('ends failed on turn.failed and shows stream errors', () => {
    const d = new CodexDecoder();
    expect(d.message({ type: 'error', message: 'reconnecting' }).events).toEqual([{ type: 'error', text: 'reconnecting' }]);
    d.message({ type: 'turn.failed', error: { message: 'usage limit reached' } });
    expect(d.end).toEqual({ state: 'failed', summary: 'usage limit reached' });
  });

  it('ends the turn as a lost network on Codex\'s own "waiting for network" retry, which never ends by itself; a bounded retry does not', () => {
    const d = new CodexDecoder();
    d.message({ type: 'error', message: 'Reconnecting... 1/5 (stream disconnected before completion: error sending request)' });
    expect(d.end).toBeUndefined();
    const waiting = 'Reconnecting... waiting for network (Connection failed: error sending request)';
    expect(d.message({ type: 'error', message: waiting }).events).toEqual([{ type: 'error', text: waiting }]);
    expect(d.end).toEqual({ state: 'failed', summary: waiting });
    expect(d.failures.at(-1)).toEqual({ kind: 'network', named: 'codex waiting for network', message: waiting });
    expect(classify({ agent: d.failures.at(-1) ?? { message: '' } })).toEqual({ kind: 'network', detail: `codex waiting for network: ${waiting}` });
  });
});

describe('the failures a Codex stream reports, as the one classifier sorts them', () => {
  const NOW = Date.UTC(2026, 9, 9, 23, 0, 0);
  const table: readonly [string, unknown, Classification][] = [
    ['a turn failed on a lost stream',
      { type: 'turn.failed', error: { message: 'stream disconnected before completion: error sending request for url (https://chatgpt.com/backend-api/codex/responses)' } },
      { kind: 'network', detail: 'stream disconnected before completion: error sending request for url (https://chatgpt.com/backend-api/codex/responses)' }],
    ['an error event out of retries on 429', { type: 'error', message: 'exceeded retry limit, last status: 429 Too Many Requests' },
      { kind: 'rate_limit', detail: 'exceeded retry limit, last status: 429 Too Many Requests' }],
    ['an error event over the usage limit, with when it resets',
      { type: 'error', message: "You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) or try again in 2 hours 5 minutes." },
      { kind: 'rate_limit', detail: "You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) or try again in 2 hours 5 minutes.", resetAt: NOW + 125 * 60_000 }],
  ];

  it.each(table)('classifies %s', (_name, msg, expected) => {
    const failure = codexFailure(msg);
    if (failure === undefined) throw new Error('no failure read');
    expect(classify({ agent: failure }, NOW)).toEqual(expected);
  });

  it('reads no failure in a completed turn or an item', () => {
    expect(codexFailure({ type: 'turn.completed', usage: {} })).toBeUndefined();
    expect(codexFailure({ type: 'item.completed', item: { type: 'error', message: 'a tool failed' } })).toBeUndefined();
  });

  it('keeps the failures it decoded for the runner', () => {
    const d = new CodexDecoder();
    d.message({ type: 'error', message: 'reconnecting' });
    d.message({ type: 'turn.failed', error: { message: 'usage limit reached' } });
    expect(d.failures).toEqual([{ message: 'reconnecting' }, { message: 'usage limit reached' }]);
  });
});
