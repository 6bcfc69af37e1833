/** The Anthropic Messages dialect (`POST /v1/messages`, Claude Code and its ACP adapters). */
import type { Dialect } from './dialect.js';
import { streamText } from './dialect.js';
import { at, list, text } from './json.js';

/** Anthropic Messages, streamed as message_start, content blocks, message_delta, message_stop. */
export const anthropic: Dialect = {
  wantsStream: (r) => at(r.body, 'stream') === true,
  tools: (body) => list(body, 'tools').flatMap((t) => (text(t, 'name') ? [{ name: text(t, 'name') ?? '', schema: at(t, 'input_schema') }] : [])),
  hasToolResult: (body) => list(body, 'messages').some((m) => list(m, 'content').some((c) => text(c, 'type') === 'tool_result')),
  async stream(send, reply, r, pace) {
    const model = text(r.body, 'model') ?? 'claude-fake';
    send('message_start', {
      type: 'message_start',
      message: { id: `msg_tai_${r.n}`, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: reply.usage.input, output_tokens: 1 } },
    });
    send('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    await streamText(reply.text, pace, (delta) => send('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: delta } }));
    send('content_block_stop', { type: 'content_block_stop', index: 0 });
    const call = reply.toolCall;
    if (call) {
      send('content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} } });
      send('content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: JSON.stringify(call.args) } });
      send('content_block_stop', { type: 'content_block_stop', index: 1 });
    }
    send('message_delta', { type: 'message_delta', delta: { stop_reason: call ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: reply.usage.output } });
    send('message_stop', { type: 'message_stop' });
  },
  json: (reply, r) => ({
    id: `msg_tai_${r.n}`,
    type: 'message',
    role: 'assistant',
    model: text(r.body, 'model') ?? 'claude-fake',
    content: [{ type: 'text', text: reply.text }, ...(reply.toolCall ? [{ type: 'tool_use', id: reply.toolCall.id, name: reply.toolCall.name, input: reply.toolCall.args }] : [])],
    stop_reason: reply.toolCall ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: reply.usage.input, output_tokens: reply.usage.output },
  }),
  error: (status) => ({
    type: 'error',
    error:
      status === 429
        ? { type: 'rate_limit_error', message: 'Number of request tokens has exceeded your per-minute rate limit (fake)' }
        : { type: 'api_error', message: 'Internal server error (fake)' },
  }),
};
