/**
 * ACP `session/update` notifications to events (docs/agents.md, "`acp`: Agent Client Protocol agents"). Pure: the
 * runner parses the JSON-RPC, this maps one update at a time and remembers tool names by call id. A turn fails
 * by a JSON-RPC error the SDK's client throws (acpFailure, src/core/decoders/rpc-error.ts).
 */
import type { AgentEvent } from '../events.js';
import { waitsForNetwork, type FailureInput } from '../outage/classify.js';
import { argsText, isObject, num, str, type Json } from './json.js';
import { RecentIds } from './recent-ids.js';
import { rpcErrorFailure } from './rpc-error.js';

/** What one update produced: events for the panel and text for the result. */
export interface AcpOut {
  readonly events: AgentEvent[];
  /** The agent's message text in this update (the result is their concatenation). */
  readonly text: string;
}

/** Maps the updates of one session. */
export class AcpDecoder {
  readonly #tools = new RecentIds();
  /** What each tool call showed last (title and input), so an update shows only what it adds. */
  readonly #shown = new RecentIds();
  /** The kind of the last streamed chunk, so a switch between thought and text starts a new line. */
  #stream: 'text' | 'thought' | 'tool' | undefined;
  /** Message text was sent this turn (a tool call after it starts a new paragraph). */
  #texted = false;
  #failure: Json | undefined;
  #lost = false;

  /** The failure the agent reported in an update while its turn went on (codex-acp's session_info_update). */
  get failure(): Json | undefined {
    return this.#failure;
  }

  /**
   * The agent waits for the network with no end to its retries ("Reconnecting... waiting for network"): its turn
   * is over, and its panel is held for the network instead of its errors counting as activity.
   */
  get lost(): boolean {
    return this.#lost;
  }

  /** Maps one `update` object of a session/update notification. */
  update(update: unknown): AcpOut {
    if (!isObject(update)) return { events: [], text: '' };
    switch (str(update, 'sessionUpdate')) {
      case 'agent_message_chunk': {
        const chunk = contentText(update['content']);
        if (!chunk) return { events: [], text: '' };
        const text = this.#stream === 'tool' && this.#texted ? `\n\n${chunk}` : chunk;
        this.#texted = true;
        return { events: [{ type: 'text', text: this.#switch('text', text) }], text };
      }
      case 'agent_thought_chunk': {
        const text = contentText(update['content']);
        return { events: text ? [{ type: 'thought', text: this.#switch('thought', text) }] : [], text: '' };
      }
      case 'tool_call':
        return { events: this.#toolCall(update), text: '' };
      case 'tool_call_update':
        return { events: this.#toolUpdate(update), text: '' };
      case 'plan': {
        const entries = Array.isArray(update['entries']) ? update['entries'].filter(isObject) : [];
        return { events: [{ type: 'plan', entries: entries.map((e) => `[${str(e, 'status') ?? 'pending'}] ${str(e, 'content') ?? ''}`) }], text: '' };
      }
      case 'usage_update': {
        const used = num(update, 'used');
        return { events: used === undefined ? [] : [{ type: 'usage', tokens: used }], text: '' };
      }
      case 'session_info_update':
        return { events: this.#sessionInfo(update), text: '' };
      case 'notice': {
        const title = str(update, 'title') ?? 'notice';
        const description = str(update, 'description');
        const text = description ? `${title}: ${description}` : title;
        return { events: [{ type: str(update, 'severity') === 'error' ? 'error' : 'note', text }], text: '' };
      }
      default:
        return { events: [], text: '' };
    }
  }

  /** The chunk's text, on a new line when the stream switches between thought and text. */
  #switch(kind: 'text' | 'thought', text: string): string {
    const switched = this.#stream !== undefined && this.#stream !== kind && this.#stream !== 'tool';
    this.#stream = kind;
    return switched ? `\n${text}` : text;
  }

  /** codex-acp may end a failed turn end_turn and say the failure only here (`threadStatus: systemError`). */
  #sessionInfo(update: Json): AgentEvent[] {
    const meta = isObject(update['_meta']) ? update['_meta'] : {};
    const codex = isObject(meta['codex']) ? meta['codex'] : {};
    const error = codex['error'];
    if (!isObject(error)) return [];
    // Kept in the shape of a JSON-RPC error, so the one classifier reads its codexErrorInfo as codex-acp's others.
    this.#failure = { code: -32603, message: str(error, 'message') ?? 'codex error', data: error };
    this.#lost ||= waitsForNetwork(str(error, 'message') ?? '');
    return [{ type: 'error', text: str(error, 'message') ?? argsText(error) }];
  }

  /** The name remembered for a tool call id. */
  toolName(id: string): string | undefined {
    return this.#tools.get(id);
  }

  #toolCall(update: Json): AgentEvent[] {
    const id = str(update, 'toolCallId') ?? '';
    // A tool_call for an id already started is an update (claude-code-acp sends the real title so).
    if (this.#tools.get(id) !== undefined) return this.#toolUpdate(update);
    const name = str(update, 'title') ?? str(update, 'name') ?? str(update, 'kind') ?? 'tool';
    const args = toolArgs(update);
    this.#tools.set(id, name);
    this.#shown.set(id, `${name}\u0000${args}`);
    this.#stream = 'tool';
    const events: AgentEvent[] = [{ type: 'tool_start', name, args, id }];
    const end = this.#end(update, id);
    if (end) events.push(end);
    return events;
  }

  #toolUpdate(update: Json): AgentEvent[] {
    const id = str(update, 'toolCallId') ?? '';
    const events: AgentEvent[] = [];
    const known = this.#tools.get(id);
    const title = str(update, 'title');
    const args = update['rawInput'] !== undefined ? toolArgs(update) : undefined;
    if (known !== undefined && (title !== undefined || args !== undefined)) {
      const [shownName = known, shownArgs = ''] = (this.#shown.get(id) ?? '').split('\u0000');
      const name = title ?? shownName;
      const input = args ?? shownArgs;
      if (name !== shownName || input !== shownArgs) {
        this.#shown.set(id, `${name}\u0000${input}`);
        this.#tools.set(id, name);
        events.push({ type: 'note', text: `⎿ ${shownName} is ${name}${input !== '' && input !== '{}' ? ` ${input}` : ''}` });
      }
    } else if (title && known === undefined) this.#tools.set(id, title);
    const end = this.#end(update, id);
    if (end) events.push(end);
    return events;
  }

  #end(update: Json, id: string): AgentEvent | undefined {
    const status = str(update, 'status');
    if (status !== 'completed' && status !== 'failed') return undefined;
    const name = this.#tools.get(id) ?? str(update, 'title') ?? 'tool';
    this.#tools.delete(id);
    this.#shown.delete(id);
    return { type: 'tool_end', name, result: toolResult(update), failed: status === 'failed', id };
  }
}

/**
 * A turn's tokens from its session/prompt response: `usage` (input plus output, or the total) or Gemini CLI's
 * `_meta.quota.token_count`; undefined when it says none (the usage_update figure then stands).
 */
export function promptUsage(response: unknown): number | undefined {
  if (!isObject(response)) return undefined;
  const usage = response['usage'];
  if (isObject(usage)) {
    const sum = (num(usage, 'inputTokens') ?? 0) + (num(usage, 'outputTokens') ?? 0);
    return sum > 0 ? sum : num(usage, 'totalTokens');
  }
  const meta = isObject(response['_meta']) ? response['_meta'] : {};
  const quota = isObject(meta['quota']) ? meta['quota'] : {};
  const count = isObject(quota['token_count']) ? quota['token_count'] : undefined;
  if (count === undefined) return undefined;
  return (num(count, 'input_tokens') ?? 0) + (num(count, 'output_tokens') ?? 0);
}

/** The text of a content block (text as is, other kinds named). */
export function contentText(block: unknown): string {
  if (!isObject(block)) return '';
  switch (str(block, 'type')) {
    case 'text':
      return str(block, 'text') ?? '';
    case 'resource_link':
      return `[${str(block, 'name') ?? str(block, 'uri') ?? 'resource'}]`;
    case 'resource': {
      const res = block['resource'];
      return isObject(res) ? (str(res, 'text') ?? `[${str(res, 'uri') ?? 'resource'}]`) : '';
    }
    case 'image':
      return '[image]';
    case 'audio':
      return '[audio]';
    default:
      return '';
  }
}

function toolArgs(update: Json): string {
  if (update['rawInput'] !== undefined) return argsText(update['rawInput']);
  const locations = Array.isArray(update['locations']) ? update['locations'].filter(isObject) : [];
  return locations.map((l) => str(l, 'path') ?? '').filter(Boolean).join(', ');
}

function toolResult(update: Json): string {
  const content = Array.isArray(update['content']) ? update['content'].filter(isObject) : [];
  const parts = content.map((c) => {
    switch (str(c, 'type')) {
      case 'content':
        return contentText(c['content']);
      case 'diff':
        return `diff ${str(c, 'path') ?? ''}`;
      case 'terminal':
        return `terminal ${str(c, 'terminalId') ?? ''}`;
      default:
        return '';
    }
  });
  const text = parts.filter(Boolean).join('\n');
  return text !== '' ? text : argsText(update['rawOutput']);
}

/**
 * A failed turn's thrown value: a JSON-RPC error (a numeric `code`, a `data` object, or either under `error`)
 * read as ACP's; anything else (a Node error, the SDK's "ACP connection closed") is left to the classifier.
 */
export function acpFailure(thrown: unknown): FailureInput {
  if (isObject(thrown) && (typeof thrown['code'] === 'number' || isObject(thrown['data']) || isObject(thrown['error']))) {
    return { agent: rpcErrorFailure(thrown) };
  }
  return { error: thrown };
}
