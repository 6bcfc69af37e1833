/**
 * Pushes to a webhook: a real local HTTP server receives them, once per
 * event; a server that is down, answers 500 or never answers is tried again
 * on the outage schedule (a fake clock) and never holds up the cockpit (its
 * control socket answers meanwhile); a URL that is not http(s) is refused.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { QuestionAsk } from '../../../src/core/agents/questions.js';
import { webhookConfig, type Push } from '../../../src/core/notify/webhook-push.js';
import { startNotifier } from '../../../src/io/cockpit/notifier.js';
import { startWebhookSender, WEBHOOK_QUEUE_LIMIT } from '../../../src/io/notify/webhook-sender.js';
import { createBoard } from '../../../store/board.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { until } from '../../helpers/until.js';
import { exchange, startHarness, type Harness } from '../socket/socket-harness.js';

const ASK: QuestionAsk = { tool: 'Edit a.txt', toolKind: 'edit', detail: [], options: [{ id: 'ok', name: 'Allow', kind: 'allow_once' }, { id: 'no', name: 'Reject', kind: 'reject_once' }] };

/** One request as the server saw it. */
interface Received {
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

/** A local webhook: answers each request with `answer` (a status, or 'hang' to never answer). */
class Hook {
  readonly got: Received[] = [];
  answer: number | 'hang' = 200;
  readonly #sockets = new Set<Socket>();
  #server: Server | undefined;
  port = 0;

  async start(port = 0): Promise<this> {
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        this.got.push({ headers: req.headers, body });
        if (this.answer !== 'hang') res.writeHead(this.answer).end('ok');
      });
    });
    server.on('connection', (s) => {
      this.#sockets.add(s);
      s.on('close', () => this.#sockets.delete(s));
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    this.#server = server;
    this.port = (server.address() as AddressInfo).port;
    return this;
  }

  get url(): URL {
    return new URL(`http://127.0.0.1:${this.port}/hook`);
  }

  /** Closes the server and every connection (the network goes away). */
  async stop(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    await new Promise<void>((resolve) => (this.#server ? this.#server.close(() => resolve()) : resolve()));
    this.#server = undefined;
  }

  json(i: number): Record<string, unknown> {
    return JSON.parse(this.got[i]?.body ?? 'null') as Record<string, unknown>;
  }
}

/** The sender's timer on a fake clock: `clock.wake()` runs the earliest. */
function fakeTimer(clock: FakeClock): (ms: number, fn: () => void) => () => void {
  return (ms, fn) => {
    const abort = new AbortController();
    void clock.sleep(ms, abort.signal).then(() => {
      if (!abort.signal.aborted) fn();
    });
    return () => abort.abort();
  };
}

const hooks: Hook[] = [];
let harness: Harness | undefined;
afterEach(async () => {
  for (const h of hooks.splice(0)) await h.stop();
  await harness?.stop();
  harness = undefined;
});

async function hook(port = 0): Promise<Hook> {
  const h = await new Hook().start(port);
  hooks.push(h);
  return h;
}

const push = (over: Partial<Push> = {}): Push => ({ event: 'done', agent: 3, label: 'builder', message: 'builder finished', at: 1_000_000, ...over });

describe('pushes to a webhook', () => {
  it('sends a question and an end once each, with the agent, the event, the question and its options', async () => {
    const h = await hook();
    const board = createBoard();
    const webhook = startWebhookSender({ config: { url: h.url, format: 'json' } });
    const stop = startNotifier({ board, env: {}, webhook, now: () => 1_700_000_000_000 });
    const id = board.getState().open({ label: 'editor @build-1' }, 0);
    const qid = board.getState().ask(id, ASK, 0, () => {});
    board.getState().tick(1_000);
    board.getState().tick(2_000);
    board.getState().answer(qid ?? '', 'y', 'key', 3_000);
    board.getState().finish(id, 'done', 'exit 0', 4_000);
    board.getState().tick(5_000);
    await until(() => h.got.length >= 2 && webhook.pending() === 0);
    board.getState().tick(6_000);
    expect(h.got).toHaveLength(2);
    expect(h.got[0]?.headers['content-type']).toBe('application/json');
    expect(h.json(0)).toEqual({
      text: 'tai: editor @build-1 is waiting for you: Edit a.txt (edit): 1 Allow, 2 Reject',
      event: 'asking',
      agent: { id, label: 'editor @build-1', host: 'build-1' },
      question: { id: qid, tool: 'Edit a.txt', options: [{ id: 'ok', name: 'Allow', kind: 'allow_once' }, { id: 'no', name: 'Reject', kind: 'reject_once' }] },
      at: '2023-11-14T22:13:20.000Z',
    });
    expect(h.json(1)).toMatchObject({ text: 'tai: editor @build-1 finished', event: 'done', agent: { id } });
    stop();
  });

  it('pushes each hold of an agent and its end wherever the user looks, each once', async () => {
    const h = await hook();
    const board = createBoard();
    const webhook = startWebhookSender({ config: { url: h.url, format: 'json' } });
    const stop = startNotifier({ board, env: {}, webhook, sent: () => {} });
    const id = board.getState().open({ label: 'fetcher' }, 0);
    board.getState().hold(id, 'network', 1_000);
    board.getState().tick(2_000);
    board.getState().finish(id, 'failed', 'exit 1', 3_000);
    board.getState().tick(4_000);
    await until(() => h.got.length >= 2 && webhook.pending() === 0);
    expect(h.got.map((g) => (JSON.parse(g.body) as { event: string; text: string }).text)).toEqual([
      'tai: fetcher is held: the network or the model service is lost; it restarts when it is back',
      'tai: fetcher failed',
    ]);
    stop();
  });

  it('pushes one event only once, however often it is handed in', async () => {
    const h = await hook();
    const webhook = startWebhookSender({ config: { url: h.url, format: 'json' } });
    expect(webhook.push(push())).toBe(true);
    expect(webhook.push(push())).toBe(false);
    expect(webhook.push(push({ event: 'held', nth: 1 }))).toBe(true);
    expect(webhook.push(push({ event: 'held', nth: 1 }))).toBe(false);
    await until(() => h.got.length === 2 && webhook.pending() === 0);
    expect(h.got.map((g) => (JSON.parse(g.body) as { event: string }).event)).toEqual(['done', 'held']);
    webhook.stop();
  });

  it('writes an ntfy topic its message as the body and its title in the Title header', async () => {
    const h = await hook();
    const webhook = startWebhookSender({ config: { url: h.url, format: 'ntfy' } });
    webhook.push(push({ event: 'asking', qid: 'q1', message: 'builder is waiting for you: Bash', options: [{ name: 'Allow' }, { name: 'Reject' }] }));
    await until(() => h.got.length === 1);
    expect(h.got[0]?.body).toBe('builder is waiting for you: Bash\n1 Allow, 2 Reject');
    expect(h.got[0]?.headers['title']).toBe('tai: builder asks you');
    expect(h.got[0]?.headers['content-type']).toBe('text/plain; charset=utf-8');
    webhook.stop();
  });

  it('tries a push again on the outage schedule while the webhook is down, and sends it once it is up', async () => {
    const down = await hook();
    const port = down.port;
    await down.stop(); // the port now refuses: the network is down
    const clock = new FakeClock(1_000_000);
    const lines: string[] = [];
    const webhook = startWebhookSender({ config: { url: new URL(`http://127.0.0.1:${port}/hook`), format: 'json' }, now: clock.now, timer: fakeTimer(clock), log: (l) => lines.push(l) });
    webhook.push(push());
    await until(() => lines.length === 1);
    expect(lines[0]).toMatch(/unreachable \(ECONNREFUSED\); tries again on the outage schedule/);
    // The first try again comes a minute later, on the fake clock; it fails too.
    expect(clock.wake()).toBe(true);
    expect(clock.t).toBe(1_060_000);
    await until(() => clock.wake(), { what: 'the second try to be scheduled after the first failed' });
    expect(clock.t).toBe(1_060_000 + 300_000); // five minutes after the second failure
    const up = await hook(port);
    await until(() => up.got.length === 1 || clock.wake());
    await until(() => up.got.length === 1 && webhook.pending() === 0);
    expect(up.json(0)).toMatchObject({ event: 'done', agent: { id: 3, label: 'builder' } });
    webhook.stop();
  });

  it('tries again after a 500, and cuts a webhook that never answers, while the control socket keeps answering', async () => {
    harness = await startHarness();
    const h = await hook();
    h.answer = 500;
    const clock = new FakeClock(1_000_000);
    const lines: string[] = [];
    const webhook = startWebhookSender({ config: { url: h.url, format: 'json' }, now: clock.now, timer: fakeTimer(clock), timeoutMs: 500, log: (l) => lines.push(l) });
    webhook.push(push());
    await until(() => lines.some((l) => l.includes('(HTTP 500)')));
    h.answer = 'hang';
    expect(clock.wake()).toBe(true); // the minute passes: tried again, and the server never answers
    await until(() => h.got.length === 2);
    // The webhook hangs: the cockpit's socket answers all the same.
    for (let i = 0; i < 3; i++) expect(await exchange(harness.path, '{"cmd":"vpane_list"}\n')).toBe('{"ok":true,"data":[]}\n');
    expect(webhook.pending()).toBe(1);
    await until(() => lines.some((l) => l.includes('no answer within')) || clock.wake(), { what: 'the hanging request to be cut' });
    h.answer = 200;
    await until(() => webhook.pending() === 0 || clock.wake());
    expect(h.got).toHaveLength(3);
    webhook.stop();
  });

  it('keeps at most the queue limit waiting, dropping the oldest and saying so', async () => {
    const clock = new FakeClock(0);
    const lines: string[] = [];
    // A post that never settles: the head stays on the wire.
    const webhook = startWebhookSender({ config: { url: new URL('http://127.0.0.1:9/'), format: 'json' }, now: clock.now, timer: fakeTimer(clock), post: () => new Promise(() => {}), log: (l) => lines.push(l) });
    for (let i = 0; i <= WEBHOOK_QUEUE_LIMIT; i++) webhook.push(push({ agent: i }));
    expect(webhook.pending()).toBe(WEBHOOK_QUEUE_LIMIT);
    expect(lines).toEqual([`webhook: ${WEBHOOK_QUEUE_LIMIT} pushes wait (127.0.0.1:9 is slow or down); dropped the oldest, the done push of builder`]);
    webhook.stop();
  });
});

describe('the webhook URL', () => {
  it('is refused unless it is http or https, with what to do', () => {
    expect(() => webhookConfig({ TAI_WEBHOOK_URL: 'ftp://example.com/x' })).toThrow('TAI_WEBHOOK_URL must be an http:// or https:// address, got "ftp:" in "ftp://example.com/x"; set it to an http(s) URL, or unset it');
    expect(() => webhookConfig({ TAI_WEBHOOK_URL: 'hooks.slack.com/x' })).toThrow('TAI_WEBHOOK_URL is not a URL: "hooks.slack.com/x"; set it to an http:// or https:// address, or unset it');
    expect(() => webhookConfig({ TAI_WEBHOOK_URL: 'https://x.test/', TAI_WEBHOOK_FORMAT: 'xml' })).toThrow(/TAI_WEBHOOK_FORMAT must be json or ntfy/);
    expect(webhookConfig({ TAI_WEBHOOK_URL: 'https://ntfy.sh/my-topic' })?.format).toBe('ntfy');
    expect(webhookConfig({ TAI_WEBHOOK_URL: 'https://hooks.slack.com/services/T/B/C' })?.format).toBe('json');
    expect(webhookConfig({})).toBeUndefined();
  });
});
