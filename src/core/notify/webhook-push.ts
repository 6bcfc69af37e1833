/**
 * The folder `src/core/notify/`: what a webhook push says and when it is tried again, as pure functions
 * (docs/agents.md, "Pushes to a webhook"). A push's key names its event, so a second push of it is dropped; the
 * network, a timeout, 5xx, 408 and 429 are tried again, any other status refuses for good.
 */
import { nextProbe, type ProbePlan } from '../outage/outage-schedule.js';

/** What a push is about: a question, an end, or an agent held for a lost service. */
export type PushEvent = 'asking' | 'done' | 'failed' | 'timeout' | 'cancelled' | 'held';

/** How the body is written. */
export type WebhookFormat = 'json' | 'ntfy';

/** One option of a question, as pushed. */
export interface PushOption {
  /** What `tai ask answer QID OPTION` takes (its number, from 1, is taken too). */
  readonly id?: string;
  readonly name: string;
  readonly kind?: string;
}

/** One push. */
export interface Push {
  readonly event: PushEvent;
  /** The agent's id (its panel's, as `tai status` and the agent list show it). */
  readonly agent: number;
  readonly label: string;
  /** The host a remote agent runs on (`tai spawn --host`), read from its label. */
  readonly host?: string;
  /** One line for a person: what happened. */
  readonly message: string;
  readonly qid?: string;
  readonly tool?: string;
  readonly options?: readonly PushOption[];
  /** Which of the events of this agent it is (a second hold is a new event); part of the key. */
  readonly nth?: number;
  /** When it happened (epoch ms). */
  readonly at: number;
}

/** Where and how to push. */
export interface WebhookConfig {
  readonly url: URL;
  readonly format: WebhookFormat;
}

/** A webhook URL or format that cannot be used: said at start, before anything runs. */
export class WebhookConfigError extends Error {
  override readonly name = 'WebhookConfigError';
}

/** The webhook in `TAI_WEBHOOK_URL` (and `TAI_WEBHOOK_FORMAT`), undefined when unset; throws a WebhookConfigError for a bad one. */
export function webhookConfig(env: Readonly<Record<string, string | undefined>>): WebhookConfig | undefined {
  const text = (env['TAI_WEBHOOK_URL'] ?? '').trim();
  if (text === '') return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new WebhookConfigError(`TAI_WEBHOOK_URL is not a URL: "${text}"; set it to an http:// or https:// address, or unset it`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new WebhookConfigError(`TAI_WEBHOOK_URL must be an http:// or https:// address, got "${url.protocol}" in "${text}"; set it to an http(s) URL, or unset it`);
  }
  const asked = (env['TAI_WEBHOOK_FORMAT'] ?? '').trim().toLowerCase();
  if (asked !== '' && asked !== 'json' && asked !== 'ntfy') {
    throw new WebhookConfigError(`TAI_WEBHOOK_FORMAT must be json or ntfy, got "${asked}"; unset it for json (ntfy for a host named ntfy.*)`);
  }
  const format: WebhookFormat = asked === 'json' || asked === 'ntfy' ? asked : url.hostname.startsWith('ntfy.') ? 'ntfy' : 'json';
  return { url, format };
}

/** The key that makes a push at most once: the event, the agent, the question or the nth hold. */
export function pushKey(push: Push): string {
  return `${push.event}:${push.agent}:${push.qid ?? push.nth ?? 0}`;
}

/** The host in a remote agent's label (`command sleep @build`), if any. */
export function hostOfLabel(label: string): string | undefined {
  return / @([A-Za-z0-9][A-Za-z0-9._-]*)$/.exec(label)?.[1];
}

/** The request's body and headers for `format`. */
export function pushRequest(push: Push, format: WebhookFormat): { readonly body: string; readonly headers: Readonly<Record<string, string>> } {
  const title = `tai: ${push.label} ${push.event === 'asking' ? 'asks you' : push.event}`;
  if (format === 'ntfy') {
    // Header values must be ISO-8859-1 without controls: anything else becomes '?'.
    const header = title.replace(/[^\x20-\x7e\xa0-\xff]/g, '?');
    const options = push.options?.length ? `\n${push.options.map((o, i) => `${i + 1} ${o.name}`).join(', ')}` : '';
    return { body: `${push.message}${options}`, headers: { 'content-type': 'text/plain; charset=utf-8', title: header, tags: push.event } };
  }
  const body = {
    text: `tai: ${push.message}`,
    event: push.event,
    agent: { id: push.agent, label: push.label, ...(push.host === undefined ? {} : { host: push.host }) },
    ...(push.qid === undefined ? {} : { question: { id: push.qid, tool: push.tool ?? '', options: push.options ?? [] } }),
    at: new Date(push.at).toISOString(),
  };
  return { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } };
}

/** What one request came to. */
export type PushOutcome = { readonly kind: 'sent' } | { readonly kind: 'retry'; readonly why: string } | { readonly kind: 'refused'; readonly why: string };

/** The outcome of an HTTP status: 2xx sent; 408, 429 and 5xx worth another try; the rest refused for good. */
export function outcomeOfStatus(status: number): PushOutcome {
  if (status >= 200 && status < 300) return { kind: 'sent' };
  if (status === 408 || status === 429 || status >= 500) return { kind: 'retry', why: `HTTP ${status}` };
  return { kind: 'refused', why: `HTTP ${status}` };
}

/** When a push that failed `attempts` times since `firstFailedAt` is tried next: the outage schedule's next probe. */
export function retryPlan(firstFailedAt: number, attempts: number, hourlyStartedAt: number | undefined, now: number, scale = 1): ProbePlan {
  // The schedule counts failed probes after the first failure: the first failure itself is attempt 0.
  return nextProbe({ startedAt: firstFailedAt, attempts: attempts - 1, hourlyStartedAt: hourlyStartedAt ?? null }, now, scale);
}
