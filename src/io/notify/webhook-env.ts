/**
 * The webhook configured once, in the cockpit's environment:
 * `TAI_WEBHOOK_URL` (http or https) and `TAI_WEBHOOK_FORMAT` (json or ntfy).
 * A bad one refuses the cockpit's start (checkWebhook, before the screen is
 * taken over); one that still fails here is logged and no push is sent.
 */
import { StartRefusedError } from '../../core/errors.js';
import { webhookConfig, WebhookConfigError } from '../../core/notify/webhook-push.js';
import { scaleOf, startWebhookSender, type WebhookSender } from './webhook-sender.js';

/** Refuses a bad TAI_WEBHOOK_URL or TAI_WEBHOOK_FORMAT at start (exit 64, the message on the normal screen). */
export function checkWebhook(env: NodeJS.ProcessEnv): void {
  try {
    webhookConfig(env);
  } catch (err) {
    if (err instanceof WebhookConfigError) throw new StartRefusedError(`tai: ${err.message}`, 64);
    throw err;
  }
}

/** The sender for the environment's webhook, or null when none is set (or it is bad: logged). */
export function webhookFromEnv(env: NodeJS.ProcessEnv, log?: (line: string) => void): WebhookSender | null {
  try {
    const config = webhookConfig(env);
    return config === undefined ? null : startWebhookSender({ config, scale: scaleOf(env), ...(log === undefined ? {} : { log }) });
  } catch (err) {
    if (!(err instanceof WebhookConfigError)) throw err;
    log?.(`webhook off: ${err.message}`);
    return null;
  }
}
