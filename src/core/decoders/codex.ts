/**
 * Codex's `codex exec --json` events to events (docs/agents.md, "`codex`: `codex exec --json`"); failures,
 * JSON-RPC-shaped, for the one classifier (codexFailure). Codex retries a refused connection for ever, printing
 * `Reconnecting... waiting for network`: that line is its own word that the network is gone, so it ends the turn
 * as a network failure, to be held and restarted, instead of counting as heartbeats until the wall clock.
 */
import type { AgentEvent } from '../events.js';
import type { AgentFailure } from '../outage/classify.js';
import { keepFailure, type Decoded, type MessageDecoder, type TurnEnd } from './json-lines.js';
import { argsText, isObject, num, str, type Json } from './json.js';
import { RecentIds } from './recent-ids.js';
import { rpcErrorFailure } from './rpc-error.js';

/** Codex's line for a retry that waits for the network with no end (see the header). */
const WAITING_FOR_NETWORK = /^Reconnecting\.\.\. waiting for network\b/;

/** Maps Codex `exec --json` messages. */
export class CodexDecoder implements MessageDecoder {
  readonly #started = new RecentIds();
  #tokens = 0;
  #messages = 0;
  #end: TurnEnd | undefined;
  readonly #failures: AgentFailure[] = [];

  /** Set once a turn completed or failed. */
  get end(): TurnEnd | undefined {
    return this.#end;
  }

  /** The failures reported so far (the last few). */
  get failures(): readonly AgentFailure[] {
    return this.#failures;
  }

  /** Maps one parsed line. */
  message(msg: unknown): Decoded {
    if (!isObject(msg)) return none();
    keepFailure(this.#failures, codexFailure(msg));
    switch (str(msg, 'type')) {
      case 'thread.started': {
        const id = str(msg, 'thread_id');
        const said: AgentEvent = { type: 'note', text: `codex thread ${id ?? '?'}` };
        return { events: id ? [said, { type: 'session', id }] : [said], text: '' };
      }
      case 'item.started':
      case 'item.updated':
      case 'item.completed':
        return isObject(msg['item']) ? this.#item(str(msg, 'type') as string, msg['item']) : none();
      case 'turn.completed': {
        const usage = isObject(msg['usage']) ? msg['usage'] : {};
        this.#tokens += (num(usage, 'input_tokens') ?? 0) + (num(usage, 'output_tokens') ?? 0);
        this.#end = { state: 'done', summary: 'turn completed' };
        return { events: [{ type: 'usage', tokens: this.#tokens }], text: '' };
      }
      case 'turn.failed': {
        const error = isObject(msg['error']) ? (str(msg['error'], 'message') ?? 'turn failed') : 'turn failed';
        this.#end = { state: 'failed', summary: error };
        return { events: [{ type: 'error', text: error }], text: '' };
      }
      case 'error': {
        const text = str(msg, 'message') ?? 'error';
        if (WAITING_FOR_NETWORK.test(text)) this.#end ??= { state: 'failed', summary: text };
        return { events: [{ type: 'error', text }], text: '' };
      }
      default:
        return none();
    }
  }

  #item(phase: string, item: Json): Decoded {
    const id = str(item, 'id') ?? '';
    const completed = phase === 'item.completed';
    switch (str(item, 'type')) {
      case 'agent_message': {
        if (!completed) return none();
        const t = str(item, 'text') ?? '';
        const text = this.#messages++ > 0 ? `\n\n${t}` : t;
        return { events: [{ type: 'text', text }], text };
      }
      case 'reasoning': {
        const t = str(item, 'text') ?? '';
        return completed && t ? { events: [{ type: 'thought', text: `${t}\n` }], text: '' } : none();
      }
      case 'command_execution':
        return this.#tool(id, completed, 'shell', str(item, 'command') ?? '', () => {
          const exit = num(item, 'exit_code');
          const output = str(item, 'aggregated_output') ?? '';
          return { result: output !== '' ? output : `exit ${exit ?? '?'}`, failed: exit !== 0 || str(item, 'status') === 'failed' };
        });
      case 'file_change': {
        const changes = Array.isArray(item['changes']) ? item['changes'].filter(isObject) : [];
        const list = changes.map((c) => `${str(c, 'kind') ?? 'change'} ${str(c, 'path') ?? ''}`).join(', ');
        return this.#tool(id, completed, 'apply_patch', list, () => ({ result: list, failed: str(item, 'status') === 'failed' }));
      }
      case 'mcp_tool_call': {
        const name = `${str(item, 'server') ?? 'mcp'}.${str(item, 'tool') ?? 'tool'}`;
        return this.#tool(id, completed, name, argsText(item['arguments']), () => {
          const error = item['error'];
          const failed = str(item, 'status') === 'failed' || error !== undefined && error !== null;
          const detail = failed ? (isObject(error) ? (str(error, 'message') ?? argsText(error)) : argsText(error)) : argsText(item['result']);
          return { result: detail, failed };
        });
      }
      case 'web_search':
        return this.#tool(id, completed, 'web_search', str(item, 'query') ?? '', () => ({ result: str(item, 'query') ?? '', failed: false }));
      case 'todo_list': {
        const items = Array.isArray(item['items']) ? item['items'].filter(isObject) : [];
        return { events: [{ type: 'plan', entries: items.map((i) => `[${i['completed'] === true ? 'done' : 'todo'}] ${str(i, 'text') ?? ''}`) }], text: '' };
      }
      case 'error':
        return { events: [{ type: 'error', text: str(item, 'message') ?? 'error' }], text: '' };
      default:
        return none();
    }
  }

  /** A tool item: its start once, its end when completed (with a start first if none was seen). */
  #tool(id: string, completed: boolean, name: string, args: string, end: () => { result: string; failed: boolean }): Decoded {
    const events: AgentEvent[] = [];
    if (this.#started.get(id) === undefined) {
      this.#started.set(id, name);
      events.push({ type: 'tool_start', name, args, id });
    }
    if (completed) {
      const { result, failed } = end();
      events.push({ type: 'tool_end', name, result, failed, id });
    }
    return { events, text: '' };
  }
}

/** What an `exec --json` message says of a failure, if it reports one: `turn.failed` or `error`. */
export function codexFailure(msg: unknown): AgentFailure | undefined {
  if (!isObject(msg)) return undefined;
  switch (str(msg, 'type')) {
    case 'turn.failed':
      return isObject(msg['error']) ? rpcErrorFailure(msg['error']) : { message: str(msg, 'error') ?? 'turn failed' };
    case 'error': {
      const message = str(msg, 'message') ?? '';
      // Codex names the lost network in its own words, not in a field the JSON-RPC reading knows.
      if (WAITING_FOR_NETWORK.test(message)) return { kind: 'network', named: 'codex waiting for network', message };
      return rpcErrorFailure(msg);
    }
    default:
      return undefined;
  }
}

function none(): Decoded {
  return { events: [], text: '' };
}
