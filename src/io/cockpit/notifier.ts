/**
 * Telling the user an agent needs them (docs/agents.md, "Notifications"): the bell and OSC 9 through the output stage,
 * and TAI_NOTIFY_HOOK with the event, agent and message, once per question (the board opens each once) or agent's end.
 * With TAI_WEBHOOK_URL every question, end and hold is also pushed (docs/agents.md, "Pushes to a webhook").
 */
import { spawn } from 'node:child_process';
import { isLive, type PanelState } from '../../core/panel/panel-state.js';
import { messageOf } from '../../core/errors.js';
import { sanitizeLine } from '../../core/text/sanitize.js';
import type { Board } from '../../../store/board.js';
import { startPushes } from '../notify/agent-pushes.js';
import { webhookFromEnv } from '../notify/webhook-env.js';
import { hookCommand } from '../notify/hook-command.js';
import type { WebhookSender } from '../notify/webhook-sender.js';

/** A hook gets this long before it is killed. */
export const NOTIFY_HOOK_TIMEOUT_MS = 10_000;

/** What a notification is about. */
export type NotifyEvent = 'asking' | 'done' | 'failed' | 'timeout' | 'cancelled';

/** One notification. */
export interface Notification {
  readonly event: NotifyEvent;
  readonly agent: string;
  readonly panel: number;
  readonly message: string;
  readonly qid?: string;
  readonly question?: string;
}

/** How to notify. */
export interface NotifierOptions {
  readonly board: Board;
  /** The terminal channel (the drawing's ring); omitted, only the hook. */
  readonly ring?: (message: string) => void;
  readonly env?: NodeJS.ProcessEnv;
  readonly log?: (line: string) => void;
  /** Told every notification sent (tests). */
  readonly sent?: (n: Notification) => void;
  /** Where pushes go; default the webhook of TAI_WEBHOOK_URL, if set (null: none). */
  readonly webhook?: WebhookSender | null;
  readonly now?: () => number;
}

/** True unless TAI_NOTIFY turns notifications off (`0`, `off`, `no`, `false`). */
export function notifyOn(env: NodeJS.ProcessEnv): boolean {
  return !['0', 'off', 'no', 'false'].includes((env['TAI_NOTIFY'] ?? '').trim().toLowerCase());
}

/** Starts notifying; returns the stop. */
export function startNotifier(options: NotifierOptions): () => void {
  const env = options.env ?? process.env;
  if (!notifyOn(env)) return () => {};
  const { board } = options;
  const webhook = options.webhook === undefined ? webhookFromEnv(env, options.log) : options.webhook;
  const offPushes = webhook ? startPushes(board, webhook, options.now) : () => {};
  const send = (n: Notification): void => {
    options.sent?.(n);
    options.ring?.(`tai: ${n.message}`);
    runHook(env, n, options.log);
  };
  const offAsked = board.getState().onAsked((q, label) => {
    const question = `${q.tool}${q.toolKind ? ` (${q.toolKind})` : ''}: ${q.options.map((o, i) => `${i + 1} ${o.name}`).join(', ')}`;
    send({ event: 'asking', agent: label, panel: q.panel, qid: q.qid, question, message: `${label} is waiting for you: ${question}` });
  });
  // An end is news only while the user looks elsewhere (zoomed on another pane); once per panel.
  const seen = new Map<number, PanelState>();
  const told = new Set<number>();
  const offEnds = board.subscribe((s) => {
    for (const p of s.panels) {
      const before = seen.get(p.id);
      seen.set(p.id, p.state);
      if (p.kind !== 'agent' || before === undefined || !isLive(before) || isLive(p.state) || told.has(p.id)) continue;
      if (s.zoom === null || s.zoom === p.id) continue;
      told.add(p.id);
      const event = p.state as NotifyEvent;
      send({ event, agent: p.label, panel: p.id, message: `${p.label} ${event === 'done' ? 'finished' : event}` });
    }
    // Panels that left are forgotten, so a day of agents costs nothing here; one reopened later is not news again.
    if (seen.size > s.panels.length) forgetGone(seen, told, s.panels);
  });
  return () => {
    offAsked();
    offEnds();
    offPushes();
  };
}

/** Forgets the panels not in `panels` (a reopened one comes back as seen first, so it is not told again). */
function forgetGone(seen: Map<number, PanelState>, told: Set<number>, panels: readonly { readonly id: number }[]): void {
  const here = new Set(panels.map((p) => p.id));
  for (const id of seen.keys()) {
    if (here.has(id)) continue;
    seen.delete(id);
    told.delete(id);
  }
}

/** The webhook's pushes alone, for a cockpit that draws nothing (no bell to ring); off with TAI_NOTIFY=0. */
export function startPushesOnly(board: Board, env: NodeJS.ProcessEnv, log?: (line: string) => void): () => void {
  const webhook = notifyOn(env) ? webhookFromEnv(env, log) : null;
  return webhook ? startPushes(board, webhook) : () => {};
}

function runHook(env: NodeJS.ProcessEnv, n: Notification, log: ((line: string) => void) | undefined): void {
  const hook = env['TAI_NOTIFY_HOOK'];
  if (hook === undefined || hook.trim() === '') return;
  const message = sanitizeLine(n.message);
  try {
    const args = [n.event, sanitizeLine(n.agent), message];
    const child = spawn(...hookCommand(hook, args), {
      env: {
        ...env,
        TAI_NOTIFY_EVENT: n.event,
        TAI_NOTIFY_AGENT: sanitizeLine(n.agent),
        TAI_NOTIFY_PANEL: String(n.panel),
        TAI_NOTIFY_MESSAGE: message,
        ...(n.qid === undefined ? {} : { TAI_NOTIFY_QID: n.qid }),
        ...(n.question === undefined ? {} : { TAI_NOTIFY_QUESTION: sanitizeLine(n.question) }),
      },
      stdio: 'ignore',
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), NOTIFY_HOOK_TIMEOUT_MS);
    timer.unref();
    child.on('exit', () => clearTimeout(timer));
    child.on('error', (err) => log?.(`notify hook failed: ${err.message}`));
  } catch (err) {
    log?.(`notify hook failed: ${messageOf(err)}`);
  }
}
