import { describe, expect, it } from 'vitest';
import { AcpDecoder } from '../../../src/core/decoders/acp.js';

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
