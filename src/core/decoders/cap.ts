/**
 * CAP events over JSON lines (`{"type": "cap.<name>", ...fields}`) to panel events, by the table of docs/spec.md,
 * "Event sources"; the spec gives the event names, the field names are tai's (docs/agents.md, "`cap`: CAP agents
 * over JSON lines"). Failures for the one classifier (capFailure): each `cap.error`; code 429 is a rate limit.
 */
import type { AgentEvent } from '../events.js';
import type { AgentFailure } from '../outage/classify.js';
import { keepFailure, type Decoded, type MessageDecoder, type TurnEnd } from './json-lines.js';
import { argsText, isObject, num, str, type Json } from './json.js';
import { RecentIds } from './recent-ids.js';

/** Maps CAP messages. */
export class CapDecoder implements MessageDecoder {
  readonly #tools = new RecentIds();
  #end: TurnEnd | undefined;
  readonly #failures: AgentFailure[] = [];

  /** Set once cap.turn.end arrived. */
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
    keepFailure(this.#failures, capFailure(msg));
    switch (str(msg, 'type')) {
      case 'cap.text_chunk': {
        const t = withNewline(str(msg, 'text') ?? '');
        if (str(msg, 'channel') === 'thought') return one({ type: 'thought', text: t });
        return { events: [{ type: 'text', text: t }], text: t };
      }
      case 'cap.thought':
        return one({ type: 'thought', text: withNewline(str(msg, 'text') ?? '') });
      case 'cap.tool_call.start': {
        const id = str(msg, 'id') ?? '';
        const name = str(msg, 'name') ?? 'tool';
        this.#tools.set(id, name);
        return one({ type: 'tool_start', name, args: argsText(msg['input']), id });
      }
      case 'cap.tool_call.end': {
        const id = str(msg, 'id') ?? '';
        const name = this.#tools.get(id) ?? str(msg, 'name') ?? 'tool';
        this.#tools.delete(id);
        return one({ type: 'tool_end', name, result: argsText(msg['output']), failed: msg['is_error'] === true, id });
      }
      case 'cap.plan': {
        const entries = Array.isArray(msg['entries']) ? msg['entries'].filter(isObject) : [];
        return one({ type: 'plan', entries: entries.map((e) => `[${str(e, 'status') ?? 'pending'}] ${str(e, 'content') ?? ''}`) });
      }
      case 'cap.usage':
        return one({ type: 'usage', tokens: (num(msg, 'input_tokens') ?? 0) + (num(msg, 'output_tokens') ?? 0) });
      case 'cap.error':
        return one({ type: 'error', text: `${str(msg, 'code') ?? num(msg, 'code') ?? 'error'}: ${str(msg, 'message') ?? ''}` });
      case 'cap.ask_user':
        return one({ type: 'note', text: `asks: ${str(msg, 'question') ?? str(msg, 'text') ?? ''}` });
      case 'cap.permission.request':
        return one({ type: 'note', text: `permission requested: ${str(msg, 'tool') ?? str(msg, 'name') ?? argsText(msg['input'])}` });
      case 'cap.artifact':
        return one({ type: 'note', text: `artifact: ${str(msg, 'name') ?? str(msg, 'path') ?? str(msg, 'uri') ?? ''}` });
      case 'cap.turn.end':
        return this.#turnEnd(msg);
      default:
        return none();
    }
  }

  #turnEnd(msg: Json): Decoded {
    const reason = str(msg, 'stop_reason') ?? 'end_turn';
    const failed = reason === 'error' || reason === 'cancelled';
    this.#end = { state: failed ? 'failed' : 'done', summary: `stop reason ${reason}` };
    return none();
  }
}

/** What a CAP message says of a failure, if it is a `cap.error`. */
export function capFailure(msg: unknown): AgentFailure | undefined {
  if (!isObject(msg) || str(msg, 'type') !== 'cap.error') return undefined;
  const message = str(msg, 'message') ?? '';
  return msg['code'] === 429 ? { kind: 'rate_limit', named: 'code 429', message } : { message };
}

function none(): Decoded {
  return { events: [], text: '' };
}

function one(event: AgentEvent): Decoded {
  return { events: [event], text: '' };
}

function withNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}
