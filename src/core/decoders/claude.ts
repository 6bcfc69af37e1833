/**
 * Claude Code's headless stream-json (`claude -p --output-format stream-json --verbose`) to events, every line
 * type as docs/agents.md, "`claude`: Claude Code headless stream-json", maps it. Failures for the one classifier
 * (claudeFailure): a failed `result`, an `assistant` message's `error`, a `system/api_retry` and a rejected
 * `rate_limit_event` (its `resetsAt`).
 */
import type { AgentEvent } from '../events.js';
import type { AgentFailure } from '../outage/classify.js';
import { epochFrom, numeric } from '../outage/reset-time.js';
import { keepFailure, type Decoded, type MessageDecoder, type TurnEnd } from './json-lines.js';
import { argsText, isObject, num, str, type Json } from './json.js';
import { RecentIds } from './recent-ids.js';

/** Maps Claude stream-json messages. */
export class ClaudeDecoder implements MessageDecoder {
  readonly #tools = new RecentIds();
  readonly #usage = new Map<string, number>();
  #partial = false;
  /** The kind of the last streamed delta, so a switch between thought and text starts a new line. */
  #stream: 'text' | 'thought' | undefined;
  #end: TurnEnd | undefined;
  readonly #failures: AgentFailure[] = [];
  #stopAsked = false;
  /** The session id tai asked Claude to resume, if any. */
  readonly #resume: string | undefined;

  constructor(options: { readonly resume?: string } = {}) {
    this.#resume = options.resume;
  }

  /** Set once the `result` line arrived. */
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
    keepFailure(this.#failures, claudeFailure(msg));
    switch (str(msg, 'type')) {
      case 'system':
        return this.#system(msg);
      case 'assistant':
        return this.#assistant(msg);
      case 'user':
        return this.#user(msg);
      case 'stream_event':
        return this.#streamEvent(msg);
      case 'rate_limit_event':
        return { events: [{ type: 'note', text: `rate limit: ${rateLimitText(msg)}` }], text: '' };
      case 'result':
        return this.#result(msg);
      default:
        return none();
    }
  }

  #system(msg: Json): Decoded {
    switch (str(msg, 'subtype')) {
      case 'init': {
        const id = str(msg, 'session_id');
        const said: AgentEvent = { type: 'note', text: `claude ${str(msg, 'model') ?? ''} · session ${id ?? '?'}`.replace('  ', ' ') };
        return { events: id ? [said, { type: 'session', id }] : [said], text: '' };
      }
      case 'api_retry': {
        const status = num(msg, 'error_status');
        const attempt = num(msg, 'attempt');
        const max = num(msg, 'max_retries');
        const error = str(msg, 'error');
        return note(`API retry ${attempt ?? '?'}${max ? `/${max}` : ''}${status ? ` after HTTP ${status}` : ''}${error ? ` (${error})` : ''}`);
      }
      case 'compact_boundary':
        return note('context compacted');
      default:
        return none();
    }
  }

  #assistant(msg: Json): Decoded {
    const message = isObject(msg['message']) ? msg['message'] : {};
    const events: AgentEvent[] = [];
    let text = '';
    const content = Array.isArray(message['content']) ? message['content'] : [];
    for (const block of content) {
      if (!isObject(block)) continue;
      switch (str(block, 'type')) {
        case 'text': {
          const t = str(block, 'text') ?? '';
          text += t;
          if (!this.#partial && t) events.push({ type: 'text', text: t });
          break;
        }
        case 'thinking': {
          const t = str(block, 'thinking') ?? '';
          // A thinking block is whole: what follows starts on its own line.
          if (!this.#partial && t) events.push({ type: 'thought', text: t.endsWith('\n') ? t : `${t}\n` });
          break;
        }
        case 'tool_use': {
          const id = str(block, 'id') ?? '';
          const name = str(block, 'name') ?? 'tool';
          this.#tools.set(id, name);
          events.push({ type: 'tool_start', name, args: argsText(block['input']), id });
          break;
        }
        default:
          break;
      }
    }
    const usage = isObject(message['usage']) ? message['usage'] : undefined;
    const id = str(message, 'id');
    if (usage && id) {
      this.#usage.set(id, (num(usage, 'input_tokens') ?? 0) + (num(usage, 'output_tokens') ?? 0));
      events.push({ type: 'usage', tokens: [...this.#usage.values()].reduce((a, b) => a + b, 0) });
    }
    return { events, text };
  }

  #user(msg: Json): Decoded {
    const message = isObject(msg['message']) ? msg['message'] : {};
    const content = Array.isArray(message['content']) ? message['content'] : [];
    const events: AgentEvent[] = [];
    for (const block of content) {
      if (!isObject(block) || str(block, 'type') !== 'tool_result') continue;
      const id = str(block, 'tool_use_id') ?? '';
      const name = this.#tools.get(id) ?? 'tool';
      this.#tools.delete(id);
      events.push({ type: 'tool_end', name, result: resultText(block['content']), failed: block['is_error'] === true, id });
    }
    return { events, text: '' };
  }

  #streamEvent(msg: Json): Decoded {
    const event = isObject(msg['event']) ? msg['event'] : {};
    if (str(event, 'type') !== 'content_block_delta') return none();
    const delta = isObject(event['delta']) ? event['delta'] : {};
    switch (str(delta, 'type')) {
      case 'text_delta': {
        this.#partial = true;
        const t = str(delta, 'text') ?? '';
        return { events: t ? [{ type: 'text', text: this.#switch('text', t) }] : [], text: '' };
      }
      case 'thinking_delta': {
        this.#partial = true;
        const t = str(delta, 'thinking') ?? '';
        return { events: t ? [{ type: 'thought', text: this.#switch('thought', t) }] : [], text: '' };
      }
      default:
        return none();
    }
  }

  #switch(kind: 'text' | 'thought', text: string): string {
    const switched = this.#stream !== undefined && this.#stream !== kind;
    this.#stream = kind;
    return switched ? `\n${text}` : text;
  }

  /** Told by the runner when it asked for the stop (the interrupt, or SIGINT). */
  stopAsked(): void {
    this.#stopAsked = true;
  }

  #result(msg: Json): Decoded {
    const failed = msg['is_error'] === true || (str(msg, 'subtype') ?? 'success') !== 'success';
    const status = num(msg, 'api_error_status');
    const answer = str(msg, 'result');
    const subtype = str(msg, 'subtype');
    // The interrupt tai asked for ends the turn `error_during_execution`: the stop, not an error.
    const interrupted = failed && this.#stopAsked && subtype === 'error_during_execution';
    const said = answer ?? firstError(msg['errors']);
    const refused = failed && !interrupted && this.#resume !== undefined && num(msg, 'num_turns') === 0 && said !== undefined;
    const summary = refused
      ? resumeRefused(this.#resume ?? '', said ?? '')
      : interrupted ? 'interrupted' : failed ? failureSummary(subtype, status, said) : `${num(msg, 'num_turns') ?? '?'} turns`;
    this.#end = { state: failed ? 'failed' : 'done', summary, ...(answer === undefined || failed ? {} : { text: answer }) };
    const events: AgentEvent[] = [];
    const usage = isObject(msg['usage']) ? msg['usage'] : undefined;
    if (usage) events.push({ type: 'usage', tokens: (num(usage, 'input_tokens') ?? 0) + (num(usage, 'output_tokens') ?? 0) });
    if (interrupted) events.push({ type: 'note', text: 'interrupted' });
    else if (failed) events.push({ type: 'error', text: summary });
    return { events, text: '' };
  }
}

/** What a stream-json message says of a failure, if it reports one (see the module's comment). */
export function claudeFailure(msg: unknown): AgentFailure | undefined {
  if (!isObject(msg)) return undefined;
  switch (str(msg, 'type')) {
    case 'result': {
      const subtype = str(msg, 'subtype') ?? 'success';
      if (msg['is_error'] !== true && subtype === 'success') return undefined;
      const message = str(msg, 'result') ?? JSON.stringify(msg['errors'] ?? '');
      const status = numeric(msg['api_error_status']);
      if (status !== undefined) return { message, status };
      // A turn that ended short (error_max_turns, error_during_execution) is not a failure of the service.
      return msg['is_error'] === true ? { message } : { kind: 'other', named: `result ${subtype}`, message: '' };
    }
    case 'assistant': {
      const error = str(msg, 'error');
      if (error === undefined) return undefined;
      const kind = error === 'rate_limit' ? 'rate_limit' : error === 'server_error' ? 'model' : 'other';
      return { kind, named: 'assistant error', message: error };
    }
    case 'system': {
      if (str(msg, 'subtype') !== 'api_retry') return undefined;
      const status = numeric(msg['error_status']);
      const message = str(msg, 'error') ?? '';
      return status === undefined ? { message } : { message, status };
    }
    case 'rate_limit_event': {
      const info = isObject(msg['rate_limit_info']) ? msg['rate_limit_info'] : {};
      // Only a rejected request is a limit; allowed and allowed_warning are news.
      if (str(info, 'status') !== 'rejected') return undefined;
      const type = str(info, 'rateLimitType');
      const resetAt = epochFrom(numeric(info['resetsAt']));
      const named = `rate limit rejected${type === undefined ? '' : ` (${type})`}`;
      return { kind: 'rate_limit', named, message: '', ...(resetAt === undefined ? {} : { resetAt }) };
    }
    default:
      return undefined;
  }
}

function none(): Decoded {
  return { events: [], text: '' };
}

function note(text: string): Decoded {
  return { events: [{ type: 'note', text }], text: '' };
}

/** What a panel says when Claude refuses the session id of `--resume`. */
export function resumeRefused(id: string, said: string): string {
  return `claude cannot resume session ${id}: ${firstLine(said)}; start it again with tai restart ID`;
}

/** The first of a result's `errors` (Claude Code puts a refused `--resume` there), if any. */
function firstError(errors: unknown): string | undefined {
  return Array.isArray(errors) && typeof errors[0] === 'string' && errors[0] !== '' ? errors[0] : undefined;
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0] ?? '';
}

/**
 * A failed result in one line. Claude Code marks API failures `subtype: "success"` with `is_error`, so that
 * subtype is never said (it would read "success (HTTP 429)"); a real error subtype is.
 */
function failureSummary(subtype: string | undefined, status: number | undefined, answer: string | undefined): string {
  const what = [subtype !== undefined && subtype !== 'success' ? subtype : '', status ? `HTTP ${status}` : ''].filter(Boolean).join(' ');
  const said = answer ? firstLine(answer) : '';
  if (what === '') return said === '' ? 'error' : said;
  return said === '' ? what : `${what}: ${said}`;
}

/** A tool_result's content: a string, or text blocks. */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter(isObject)
    .map((b) => (str(b, 'type') === 'text' ? (str(b, 'text') ?? '') : `[${str(b, 'type') ?? 'content'}]`))
    .join('\n');
}

function rateLimitText(msg: Json): string {
  const info = isObject(msg['rate_limit_info']) ? msg['rate_limit_info'] : msg;
  const status = str(info, 'status') ?? 'unknown';
  const kind = str(info, 'rateLimitType');
  const resets = num(info, 'resetsAt');
  return `${status}${kind ? ` (${kind})` : ''}${resets ? `, resets at ${new Date(resets * 1000).toISOString()}` : ''}`;
}
