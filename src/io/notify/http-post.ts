/**
 * One bounded POST to a webhook with Node's own http/https, loaded at the first push, never `fetch`: it loads undici,
 * which the cockpit keeps out of memory (src/io/lean-import.ts), and an aborted fetch can hold the process. No
 * keep-alive: a push every few minutes needs no socket held open.
 */
import type { ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import { messageOf } from '../../core/errors.js';
import { outcomeOfStatus, type PushOutcome } from '../../core/notify/webhook-push.js';

/** A request gets this long, connecting and answering included, before it is cut. */
export const WEBHOOK_TIMEOUT_MS = 10_000;

type Request = (url: URL, options: RequestOptions, answered: (res: IncomingMessage) => void) => ClientRequest;

/** POSTs `body` to `url`; resolves with the outcome, never rejects, within `timeoutMs`. */
export async function postOnce(url: URL, body: string, headers: Readonly<Record<string, string>>, timeoutMs = WEBHOOK_TIMEOUT_MS): Promise<PushOutcome> {
  const request: Request = url.protocol === 'https:' ? (await import('node:https')).request : (await import('node:http')).request;
  return new Promise<PushOutcome>((resolve) => {
    let settled = false;
    const settle = (outcome: PushOutcome): void => {
      if (settled) return;
      settled = true;
      resolve(outcome);
    };
    const bytes = Buffer.from(body, 'utf8');
    let req: ClientRequest;
    try {
      req = request(url, { method: 'POST', agent: false, headers: { ...headers, 'content-length': String(bytes.length), 'user-agent': 'tai' } }, (res) => {
        // The status is the answer; the body is read and thrown away so the socket closes.
        res.resume();
        res.on('error', () => {});
        settle(outcomeOfStatus(res.statusCode ?? 0));
      });
    } catch (err) {
      // A header value Node refuses: no retry would fix it.
      resolve({ kind: 'refused', why: messageOf(err) });
      return;
    }
    // A server that accepts and never answers (or answers a byte a minute) is cut at the deadline, body and all.
    const deadline = setTimeout(() => {
      settle({ kind: 'retry', why: `no answer within ${Math.round(timeoutMs / 1000)} s` });
      req.destroy();
    }, timeoutMs);
    deadline.unref();
    req.on('close', () => clearTimeout(deadline));
    req.on('error', (err: NodeJS.ErrnoException) => settle({ kind: 'retry', why: err.code ?? err.message }));
    req.end(bytes);
  });
}
