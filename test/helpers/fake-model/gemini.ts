/** The Gemini dialect (`POST /v1beta/models/M:streamGenerateContent?alt=sse` and `:generateContent`, Gemini CLI). */
import type { Dialect, Reply, RequestView } from './dialect.js';
import { streamText } from './dialect.js';
import { at, list, type Json } from './json.js';

function chunk(parts: Json[], r: RequestView, finishReason?: string): Record<string, Json> {
  const model = /models\/([^:]+):/.exec(r.path)?.[1] ?? 'gemini-fake';
  return { candidates: [{ content: { role: 'model', parts }, index: 0, ...(finishReason ? { finishReason } : {}) }], modelVersion: model };
}

function usage(reply: Reply): Json {
  return { promptTokenCount: reply.usage.input, candidatesTokenCount: reply.usage.output, totalTokenCount: reply.usage.input + reply.usage.output };
}

/** Gemini generateContent, streamed as one SSE chunk per piece of text, the call and usage last. */
export const gemini: Dialect = {
  wantsStream: (r) => r.path.includes(':streamGenerateContent'),
  tools: (body) =>
    list(body, 'tools')
      .flatMap((t) => list(t, 'functionDeclarations'))
      .map((d) => ({ name: String(at(d, 'name') ?? ''), schema: at(d, 'parametersJsonSchema') ?? at(d, 'parameters') })),
  hasToolResult: (body) => list(list(body, 'contents').at(-1), 'parts').some((p) => at(p, 'functionResponse') !== undefined),
  async stream(send, reply, r, pace) {
    await streamText(reply.text, pace, (text) => send(undefined, chunk([{ text }], r)));
    const parts = reply.toolCall ? [{ functionCall: { name: reply.toolCall.name, args: reply.toolCall.args } }] : [];
    send(undefined, { ...chunk(parts, r, 'STOP'), usageMetadata: usage(reply) });
  },
  json: (reply, r) => {
    const parts: Json[] = [{ text: reply.text }];
    if (reply.toolCall) parts.push({ functionCall: { name: reply.toolCall.name, args: reply.toolCall.args } });
    return { ...chunk(parts, r, 'STOP'), usageMetadata: usage(reply) };
  },
  error: (status) => ({
    error:
      status === 429
        ? { code: 429, message: 'Resource has been exhausted (e.g. check quota). (fake)', status: 'RESOURCE_EXHAUSTED' }
        : { code: 500, message: 'Internal error encountered. (fake)', status: 'INTERNAL' },
  }),
};
