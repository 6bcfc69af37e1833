/**
 * What every provider's dialect of the fake model server implements: how to
 * find the tools a CLI offers and a tool result it sends back, and how to
 * dress one scripted reply (text, maybe one tool call, usage) as that
 * provider's stream, JSON answer or error body.
 */
import type { ServerResponse } from 'node:http';
import type { Json } from './json.js';

/** The four provider APIs the real CLIs speak. */
export type Provider = 'anthropic' | 'responses' | 'chat' | 'gemini';

/** A tool the CLI offered: its name and the JSON schema of its arguments. */
export interface ToolSpec {
  readonly name: string;
  readonly schema: Json;
  /** The namespace it was offered in (Codex's MCP tools), which a call names too. */
  readonly namespace?: string;
}

/** What one reply says, before a dialect dresses it. */
export interface Reply {
  readonly text: string;
  readonly toolCall?: { readonly id: string; readonly name: string; readonly args: Record<string, Json>; readonly namespace?: string };
  readonly usage: { readonly input: number; readonly output: number };
}

/** The request a reply answers: its number, path and parsed body. */
export interface RequestView {
  readonly n: number;
  readonly path: string;
  readonly body: Json;
}

/** Writes one server-sent event (an event name, or none, and its data). */
export type Send = (event: string | undefined, data: Json) => void;

/** One provider's wire format. */
export interface Dialect {
  wantsStream(r: RequestView): boolean;
  tools(body: Json): ToolSpec[];
  hasToolResult(body: Json): boolean;
  stream(send: Send, reply: Reply, r: RequestView, pace: number): Promise<void>;
  json(reply: Reply, r: RequestView): Json;
  error(status: 429 | 500): Json;
}

/** Starts a server-sent event stream. */
export function startSse(res: ServerResponse): Send {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  return (event, data) => {
    const payload = typeof data === 'string' ? data : JSON.stringify(data);
    res.write(`${event ? `event: ${event}\n` : ''}data: ${payload}\n\n`);
  };
}

/** Writes `text` through `emit` in word-sized pieces, `pace` ms apart (at once, in 500-character pieces, without a pace). */
export async function streamText(text: string, pace: number, emit: (delta: string) => void): Promise<void> {
  const pieces = pace > 0 ? (text.match(/\S+\s*|\s+/g) ?? [text]) : text.length > 200 ? (text.match(/[\s\S]{1,500}/g) ?? [text]) : [text];
  for (const piece of pieces) {
    if (pace > 0) await new Promise((resolve) => setTimeout(resolve, pace));
    emit(piece);
  }
}
