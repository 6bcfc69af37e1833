/**
 * What the agents' board pushes to the webhook: every question as it opens
 * (the board opens each once), every agent's end and every hold (an outage
 * holds the agent), wherever the user looks: pushes are for when they are
 * away. The sender drops a second push of one event (webhook-sender.ts).
 */
import { isLive, type PanelState } from '../../core/panel/panel-state.js';
import { hostOfLabel, type Push } from '../../core/notify/webhook-push.js';
import type { Board } from '../../../store/board.js';
import type { WebhookSender } from './webhook-sender.js';

/** Pushes the board's events to `webhook`; returns the stop (which stops the sender too). */
export function startPushes(board: Board, webhook: WebhookSender, now: () => number = Date.now): () => void {
  const pushOf = (p: Omit<Push, 'at' | 'host'>): void => {
    const host = hostOfLabel(p.label);
    webhook.push({ ...p, ...(host === undefined ? {} : { host }), at: now() });
  };
  const offAsked = board.getState().onAsked((q, label) => {
    const question = `${q.tool}${q.toolKind ? ` (${q.toolKind})` : ''}: ${q.options.map((o, i) => `${i + 1} ${o.name}`).join(', ')}`;
    const options = q.options.map((o) => ({ id: o.id, name: o.name, ...(o.kind === undefined ? {} : { kind: o.kind }) }));
    pushOf({ event: 'asking', agent: q.panel, label, qid: q.qid, tool: q.tool, options, message: `${label} is waiting for you: ${question}` });
  });
  const seen = new Map<number, PanelState>();
  const holds = new Map<number, number>();
  const offChanges = board.subscribe((s) => {
    for (const p of s.panels) {
      const before = seen.get(p.id);
      seen.set(p.id, p.state);
      if (p.kind !== 'agent' || before === p.state) continue;
      if (p.state === 'waiting') {
        const nth = (holds.get(p.id) ?? 0) + 1;
        holds.set(p.id, nth);
        pushOf({ event: 'held', agent: p.id, label: p.label, nth, message: `${p.label} is held: the network or the model service is lost; it restarts when it is back` });
      } else if (!isLive(p.state) && (before === undefined || isLive(before))) {
        const event = p.state as Push['event'];
        pushOf({ event, agent: p.id, label: p.label, message: `${p.label} ${event === 'done' ? 'finished' : event}` });
      }
    }
  });
  return () => {
    offAsked();
    offChanges();
    webhook.stop();
  };
}
