/** The two OpenAI dialects: Responses (`POST /v1/responses`, Codex) and Chat Completions (`POST /v1/chat/completions`, opencode). */
import type { Dialect } from './dialect.js';
import { streamText } from './dialect.js';
import { at, list, text, type Json } from './json.js';

/** OpenAI's error body for a 429 or a 500. */
function openAiError(status: 429 | 500): Json {
  return status === 429
    ? { error: { message: 'Rate limit reached for requests (fake)', type: 'requests', param: null, code: 'rate_limit_exceeded' } }
    : { error: { message: 'The server had an error while processing your request (fake)', type: 'server_error', param: null, code: null } };
}

/** OpenAI Responses, streamed as response.* events. */
export const responses: Dialect = {
  wantsStream: (r) => at(r.body, 'stream') !== false,
  tools: (body) =>
    list(body, 'tools').flatMap((t) => {
      if (text(t, 'type') === 'function') return [{ name: text(t, 'name') ?? '', schema: at(t, 'parameters') }];
      // Codex offers an MCP server's tools as a namespace (`mcp__NAME`); a call names both.
      if (text(t, 'type') === 'namespace') return list(t, 'tools').map((f) => ({ name: text(f, 'name') ?? '', schema: at(f, 'parameters'), namespace: text(t, 'name') ?? '' }));
      return [];
    }),
  hasToolResult: (body) => list(body, 'input').some((i) => /_call_output$/.test(text(i, 'type') ?? '')),
  async stream(send, reply, r, pace) {
    const id = `resp_tai_${r.n}`;
    const ev = (type: string, data: Record<string, Json>): void => send(type, { type, ...data });
    ev('response.created', { response: { id, object: 'response', status: 'in_progress', output: [] } });
    const msg = { id: `msg_tai_${r.n}`, type: 'message', role: 'assistant', status: 'in_progress', content: [] };
    ev('response.output_item.added', { output_index: 0, item: msg });
    ev('response.content_part.added', { item_id: msg.id, output_index: 0, content_index: 0, part: { type: 'output_text', text: '' } });
    await streamText(reply.text, pace, (delta) => ev('response.output_text.delta', { item_id: msg.id, output_index: 0, content_index: 0, delta }));
    ev('response.output_text.done', { item_id: msg.id, output_index: 0, content_index: 0, text: reply.text });
    const done = { ...msg, status: 'completed', content: [{ type: 'output_text', text: reply.text, annotations: [] }] };
    ev('response.output_item.done', { output_index: 0, item: done });
    const output: Json[] = [done];
    const call = reply.toolCall;
    if (call) {
      const args = JSON.stringify(call.args);
      const item = { id: `fc_tai_${r.n}`, type: 'function_call', status: 'in_progress', call_id: call.id, name: call.name, ...(call.namespace === undefined ? {} : { namespace: call.namespace }), arguments: '' };
      ev('response.output_item.added', { output_index: 1, item });
      ev('response.function_call_arguments.delta', { item_id: item.id, output_index: 1, delta: args });
      ev('response.function_call_arguments.done', { item_id: item.id, output_index: 1, arguments: args });
      const fin = { ...item, status: 'completed', arguments: args };
      ev('response.output_item.done', { output_index: 1, item: fin });
      output.push(fin);
    }
    const { input, output: out } = reply.usage;
    const usage = { input_tokens: input, input_tokens_details: { cached_tokens: 0 }, output_tokens: out, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: input + out };
    ev('response.completed', { response: { id, object: 'response', status: 'completed', output, usage } });
  },
  json: (reply, r) => ({
    id: `resp_tai_${r.n}`,
    object: 'response',
    status: 'completed',
    output: [
      { id: `msg_tai_${r.n}`, type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: reply.text, annotations: [] }] },
      ...(reply.toolCall ? [{ id: `fc_tai_${r.n}`, type: 'function_call', status: 'completed', call_id: reply.toolCall.id, name: reply.toolCall.name, arguments: JSON.stringify(reply.toolCall.args) }] : []),
    ],
    usage: { input_tokens: reply.usage.input, output_tokens: reply.usage.output, total_tokens: reply.usage.input + reply.usage.output },
  }),
  error: openAiError,
};

/** OpenAI Chat Completions, streamed as chunks, then usage, then [DONE]. */
export const chat: Dialect = {
  wantsStream: (r) => at(r.body, 'stream') === true,
  tools: (body) => list(body, 'tools').flatMap((t) => (text(t, 'function', 'name') ? [{ name: text(t, 'function', 'name') ?? '', schema: at(t, 'function', 'parameters') }] : [])),
  hasToolResult: (body) => list(body, 'messages').some((m) => text(m, 'role') === 'tool'),
  async stream(send, reply, r, pace) {
    const base = { id: `chatcmpl-tai-${r.n}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: text(r.body, 'model') ?? 'fake-model' };
    const chunk = (delta: Json, finish: string | null = null): void => send(undefined, { ...base, choices: [{ index: 0, delta, finish_reason: finish }] });
    chunk({ role: 'assistant', content: '' });
    await streamText(reply.text, pace, (content) => chunk({ content }));
    const call = reply.toolCall;
    if (call) {
      chunk({ tool_calls: [{ index: 0, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] });
      chunk({ tool_calls: [{ index: 0, function: { arguments: JSON.stringify(call.args) } }] });
    }
    chunk({}, call ? 'tool_calls' : 'stop');
    const { input, output } = reply.usage;
    send(undefined, { ...base, choices: [], usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output } });
    send(undefined, '[DONE]');
  },
  json: (reply, r) => ({
    id: `chatcmpl-tai-${r.n}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: text(r.body, 'model') ?? 'fake-model',
    choices: [
      {
        index: 0,
        finish_reason: reply.toolCall ? 'tool_calls' : 'stop',
        message: {
          role: 'assistant',
          content: reply.text,
          ...(reply.toolCall ? { tool_calls: [{ id: reply.toolCall.id, type: 'function', function: { name: reply.toolCall.name, arguments: JSON.stringify(reply.toolCall.args) } }] } : {}),
        },
      },
    ],
    usage: { prompt_tokens: reply.usage.input, completion_tokens: reply.usage.output, total_tokens: reply.usage.input + reply.usage.output },
  }),
  error: openAiError,
};
