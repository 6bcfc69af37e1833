/**
 * The one notification at give-up (docs/spec.md, "Give-up and notification"): sent by the one process that wins the
 * compare-and-set on the outage's `notified_at`, through notify-send, the bell and OSC 9, and TAI_NOTIFY_HOOK run as
 * src/io/notify/hook-command.ts runs it (docs/outages.md, "The model"); each outcome is a `notify-sent` row.
 */
import { sanitizeLine } from '../../core/text/sanitize.js';
import { claimNotification, formatDuration, log, type Outage } from './outage-store.js';
import { runProbe } from './probes.js';
import { which } from '../path-lookup.js';
import { hookCommand } from '../notify/hook-command.js';
import type { StateDb } from '../storage/state-db.js';

/** A channel command (notify-send, the hook) gets this long before it is killed. */
export const NOTIFY_COMMAND_TIMEOUT_MS = 10_000;

/** How to send the notification. */
export interface NotifyOptions {
  readonly now: number;
  readonly pid?: number;
  /** `TAI_NOTIFY_HOOK` and `PATH` are read from here. */
  readonly env?: NodeJS.ProcessEnv;
  /** Writes to the terminal the user watches (the bell and OSC 9); omitted, no terminal channel. */
  readonly terminal?: (bytes: string) => void;
}

/** What happened: whether this process sent it, and through which channels. */
export interface NotifyResult {
  readonly sent: boolean;
  /** One line per channel tried, as logged ("hook: exit 0"). */
  readonly channels: readonly string[];
}

/** The words of the give-up notification. */
export function giveUpMessage(outage: Outage): string {
  const lost = outage.service === 'network' ? 'the network' : 'the model service';
  const probes = `${outage.attempts} probe${outage.attempts === 1 ? '' : 's'}`;
  const lasted = outage.gaveUpAt === null ? '' : ` after ${formatDuration(outage.gaveUpAt - outage.startedAt)}`;
  return `tai gave up waiting for ${lost}${lasted} (${probes}); the run stopped. See \`tai report\`.`;
}

/**
 * Sends the give-up notification of `outage` if it gave up and this process
 * wins the claim; otherwise sends nothing and says so.
 */
export async function notifyGiveUp(db: StateDb, outage: Outage, options: NotifyOptions): Promise<NotifyResult> {
  if (outage.gaveUpAt === null) return { sent: false, channels: [] };
  const pid = options.pid ?? process.pid;
  if (!claimNotification(db, outage.id, options.now, pid)) return { sent: false, channels: [] };
  const env = options.env ?? process.env;
  const message = giveUpMessage(outage);
  const channels: string[] = [];
  if (options.terminal !== undefined) {
    options.terminal(`\x07\x1b]9;${sanitizeLine(message).replace(/[\x07\x1b]/g, '')}\x07`);
    channels.push('terminal: bell and OSC 9');
  }
  const notifySend = which('notify-send', env['PATH']);
  if (notifySend !== undefined) {
    const outcome = await runProbe(
      { argv: [notifySend, '--urgency=critical', '--app-name=tai', 'tai: outage', message] },
      { env, timeoutMs: NOTIFY_COMMAND_TIMEOUT_MS },
    );
    channels.push(`notify-send: ${outcome.detail}`);
  }
  const hook = env['TAI_NOTIFY_HOOK'];
  if (hook !== undefined && hook.trim() !== '') {
    const [file, args] = hookCommand(hook, ['outage', outage.service, message]);
    const outcome = await runProbe(
      { argv: [file, ...args] },
      {
        env: {
          ...env,
          TAI_NOTIFY_EVENT: 'outage',
          TAI_NOTIFY_MESSAGE: message,
          TAI_OUTAGE_ID: String(outage.id),
          TAI_OUTAGE_SERVICE: outage.service,
        },
        timeoutMs: NOTIFY_COMMAND_TIMEOUT_MS,
      },
    );
    channels.push(`hook: ${outcome.detail}`);
  }
  log(db, {
    at: options.now,
    pid,
    kind: 'notify-sent',
    service: outage.service,
    outageId: outage.id,
    detail: channels.length === 0 ? 'no channel available' : channels.join('; '),
  });
  return { sent: true, channels };
}
