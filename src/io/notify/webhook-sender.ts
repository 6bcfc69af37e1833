/**
 * The folder `src/io/notify/`: pushes to the webhook (docs/agents.md, "Pushes to a webhook"). This file: its queue,
 * one push at a time, in order, each at most once, never waited for by the cockpit. A push failing for a reason
 * worth trying again retries on the outage schedule, the rest waiting; one refused for good, or the oldest of a
 * full queue, is logged and dropped.
 */
import { parseTimeScale } from '../../core/outage/outage-schedule.js';
import { pushKey, pushRequest, retryPlan, type Push, type PushOutcome, type WebhookConfig } from '../../core/notify/webhook-push.js';
import { after, type Cancel } from '../after.js';
import { postOnce, WEBHOOK_TIMEOUT_MS } from './http-post.js';

/** At most this many pushes wait; a push past it drops the oldest waiting one. */
export const WEBHOOK_QUEUE_LIMIT = 100;
/** Keys remembered to refuse a second push of one event (the oldest forgotten first). */
const KEYS_KEPT = 4096;

/** How to send. */
export interface WebhookSenderOptions {
  readonly config: WebhookConfig;
  readonly now?: () => number;
  /** Runs `fn` after `ms`; the real one is an unref'd timer (a fake clock's in tests). */
  readonly timer?: (ms: number, fn: () => void) => Cancel;
  /** One request; default postOnce. */
  readonly post?: (url: URL, body: string, headers: Readonly<Record<string, string>>, timeoutMs: number) => Promise<PushOutcome>;
  readonly timeoutMs?: number;
  /** The outage schedule's scale (TAI_OUTAGE_TIME_SCALE). */
  readonly scale?: number;
  readonly log?: (line: string) => void;
}

/** A running queue. */
export interface WebhookSender {
  /** Queues a push; false when its event was pushed (or queued) already. */
  push(push: Push): boolean;
  /** How many wait, the one being sent or retried included. */
  pending(): number;
  /** Stops sending; what waits is dropped. */
  stop(): void;
}

/** What the head of the queue has been through. */
interface Failing {
  readonly firstAt: number;
  attempts: number;
  hourlyStartedAt: number | undefined;
}

/** Starts a queue for `options.config`. */
export function startWebhookSender(options: WebhookSenderOptions): WebhookSender {
  const { config } = options;
  const now = options.now ?? Date.now;
  const timer = options.timer ?? ((ms: number, fn: () => void) => after(ms, fn, true));
  const post = options.post ?? postOnce;
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const scale = options.scale ?? 1;
  const log = options.log ?? (() => {});
  const queue: Push[] = [];
  const keys = new Set<string>();
  let sending = false;
  let waiting: Cancel | undefined;
  let failing: Failing | undefined;
  let stopped = false;

  const done = (): void => {
    queue.shift();
    failing = undefined;
  };
  const settled = (head: Push, outcome: PushOutcome): void => {
    sending = false;
    if (stopped) return;
    if (outcome.kind === 'sent') done();
    else if (outcome.kind === 'refused') {
      log(`webhook: ${config.url.host} refused the ${head.event} push of ${head.label} (${outcome.why}); dropped, check TAI_WEBHOOK_URL`);
      done();
    } else {
      const at = now();
      failing ??= { firstAt: at, attempts: 0, hourlyStartedAt: undefined };
      failing.attempts++;
      const plan = retryPlan(failing.firstAt, failing.attempts, failing.hourlyStartedAt, at, scale);
      if (plan.kind === 'give-up') {
        log(`webhook: gave up the ${head.event} push of ${head.label} after ${failing.attempts} tries (${outcome.why})`);
        done();
      } else {
        failing.hourlyStartedAt = plan.hourlyStartedAt ?? failing.hourlyStartedAt;
        if (failing.attempts === 1) log(`webhook: ${config.url.host} unreachable (${outcome.why}); tries again on the outage schedule`);
        waiting = timer(plan.at - at, () => {
          waiting = undefined;
          pump();
        });
        return;
      }
    }
    pump();
  };
  const pump = (): void => {
    const head = queue[0];
    if (stopped || sending || waiting !== undefined || head === undefined) return;
    sending = true;
    const { body, headers } = pushRequest(head, config.format);
    void post(config.url, body, headers, timeoutMs).then(
      (outcome) => settled(head, outcome),
      (err: unknown) => settled(head, { kind: 'retry', why: String(err) }),
    );
  };
  return {
    push(push) {
      const key = pushKey(push);
      if (stopped || keys.has(key)) return false;
      keys.add(key);
      if (keys.size > KEYS_KEPT) keys.delete(keys.values().next().value as string);
      if (queue.length >= WEBHOOK_QUEUE_LIMIT) {
        // The head may be on the wire or between tries: the oldest behind it goes.
        const [dropped] = queue.splice(sending || waiting !== undefined || failing !== undefined ? 1 : 0, 1);
        log(`webhook: ${WEBHOOK_QUEUE_LIMIT} pushes wait (${config.url.host} is slow or down); dropped the oldest, the ${dropped?.event} push of ${dropped?.label}`);
      }
      queue.push(push);
      pump();
      return true;
    },
    pending: () => queue.length,
    stop() {
      stopped = true;
      waiting?.();
      waiting = undefined;
      queue.length = 0;
    },
  };
}

/** The outage schedule's scale from the environment, 1 when it cannot be read (the outage watch says why). */
export function scaleOf(env: NodeJS.ProcessEnv): number {
  try {
    return parseTimeScale(env['TAI_OUTAGE_TIME_SCALE']);
  } catch {
    return 1;
  }
}
