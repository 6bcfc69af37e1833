import { describe, expect, it } from 'vitest';
import { CodexDecoder } from '../../../src/core/decoders/codex.js';

describe('the Codex exec --json decoder', () => {
  it('maps items to tool calls, thoughts, plans and text, and turn.completed to usage and the end', () => {
    const d = new CodexDecoder();
    const m = (o: unknown) => d.message(o).events;
    expect(m({ type: 'thread.started', thread_id: 't1' })).toEqual([{ type: 'note', text: 'codex thread t1' }]);
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
});
