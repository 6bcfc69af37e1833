/**
 * A fake model service for running the real agent CLIs in tests
 * (test/real-agents/). It listens on 127.0.0.1 and speaks enough of four
 * provider APIs (one dialect each under fake-model/) to script one turn:
 *   1. a text, then one call to the shell (or list-files) tool the CLI
 *      offered, such as `echo tai-tool-ok`;
 *   2. once a request carries the tool's result: a final text.
 * Requests without tools (titles, routing, next-speaker checks) get a short
 * text, or JSON built from the schema they ask for.
 *
 * Misbehaviour on demand, for the whole server or per request (`Mode`);
 * `stop()` refuses connections on the same port until `start()`. Every
 * request is recorded, so a test can count the tool round trips.
 * `GET /tai/health` answers 500 while the mode is server-error and 200
 * otherwise: the network and model probes of the tests (TAI_NETWORK_PROBE,
 * TAI_MODEL_PROBE, `?probe=network|model`) ask it, and each ask is recorded
 * in `probes` (so a test sees which probe tai ran, and when).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { anthropic } from './fake-model/anthropic.js';
import { startSse, type Dialect, type Provider, type Reply, type ToolSpec } from './fake-model/dialect.js';
import { gemini } from './fake-model/gemini.js';
import { at, sampleOf, type Json } from './fake-model/json.js';
import { chat, responses } from './fake-model/openai.js';
import { leadStep, type LeadScript } from './fake-model/lead-script.js';

/** How the server answers a request. */
export type Mode =
  | 'ok' /* the scripted turn */
  | 'long' /* a final text over 8000 characters, no tool call */
  | 'rate-limit' /* HTTP 429 with the provider's body and retry-after */
  | 'server-error' /* HTTP 500 with the provider's body */
  | 'hang' /* accepts the request and never answers */
  | 'slow'; /* the scripted turn, one word every `slowMs` */

/** One request the server saw. */
export interface RecordedRequest {
  /** 1-based over the server's life. */
  readonly n: number;
  readonly method: string;
  readonly path: string;
  readonly provider: Provider | 'other';
  readonly body: Json;
  mode: Mode;
  /** tool: a tool call was asked for; final: a tool result was answered; plain: a text only. */
  step?: 'tool' | 'final' | 'plain';
}

/** One ask of `/tai/health` by a probe of tai. */
export interface RecordedProbe {
  /** Which probe asked (its `?probe=` query), or 'other'. */
  readonly probe: 'network' | 'model' | 'other';
  /** Epoch ms it came in. */
  readonly at: number;
  /** What it was answered: 500 while the mode is server-error, else 200. */
  readonly status: number;
}

/** How to start the server. */
export interface FakeModelOptions {
  /** A mode, or one chosen per request. Default 'ok'. */
  readonly mode?: Mode | ((n: number, req: RecordedRequest) => Mode);
  readonly slowMs?: number;
  readonly retryAfterSeconds?: number;
  /** The command the scripted tool call runs. Default `echo tai-tool-ok`. */
  readonly shellCommand?: string;
  /** Usage on every reply (1234 in, 56 out by default: sums are easy to spot). */
  readonly usage?: { readonly input: number; readonly output: number };
  /** Play a lead agent with tai's MCP tools when the CLI offers them (fake-model/lead-script.ts): spawn this worker, wait, answer its head. */
  readonly lead?: LeadScript;
}

/** A running fake model server. */
export interface FakeModelServer {
  /** http://127.0.0.1:PORT, without /v1. */
  readonly url: string;
  readonly port: number;
  readonly requests: RecordedRequest[];
  /** The probes' asks of `/tai/health`, in order. */
  readonly probes: RecordedProbe[];
  /** When the last model request came in (epoch ms), 0 before any. */
  lastRequestAt(): number;
  setMode(mode: NonNullable<FakeModelOptions['mode']>): void;
  /** Requests that carried a tool result back (an agent may resend its history, so at least one per call). */
  toolRoundTrips(): number;
  /** Replies that asked for a tool call: one per tool the agent ran. */
  toolCalls(): number;
  /** Stops listening (connections are refused) and drops every open connection. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  close(): Promise<void>;
}

/** The final text of the scripted turn. */
export const FINAL_TEXT = 'The tool printed tai-tool-ok. Done.';

const DIALECTS: Record<Provider, Dialect> = { anthropic, responses, chat, gemini };
const SHELL_TOOLS = ['bash', 'shell', 'shell_command', 'exec_command', 'run_shell_command'];
const LIST_TOOLS = ['ls', 'list', 'list_directory', 'glob'];

/** Starts the server on a free port of 127.0.0.1. */
export async function startFakeModelServer(opts: FakeModelOptions = {}): Promise<FakeModelServer> {
  let mode = opts.mode ?? 'ok';
  const requests: RecordedRequest[] = [];
  const probes: RecordedProbe[] = [];
  let lastRequestAt = 0;
  const sockets = new Set<Socket>();
  const modeNow = (): Mode => (typeof mode === 'function' ? 'ok' : mode);
  const server = createServer((req, res) => {
    void readBody(req).then((raw) => {
      const url = new URL(req.url ?? '/', 'http://fake');
      if (url.pathname === '/tai/health') {
        const status = modeNow() === 'server-error' ? 500 : 200;
        const probe = url.searchParams.get('probe');
        probes.push({ probe: probe === 'network' || probe === 'model' ? probe : 'other', at: Date.now(), status });
        return void sendJson(res, status, { mode: modeNow() });
      }
      lastRequestAt = Date.now();
      const record: RecordedRequest = { n: requests.length + 1, method: req.method ?? 'GET', path: req.url ?? '/', provider: providerOf(req.url ?? '/'), body: parse(raw), mode: 'ok' };
      requests.push(record);
      record.mode = typeof mode === 'function' ? mode(record.n, record) : mode;
      handle(record, res, opts).catch(() => res.destroy());
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const listen = (port: number): Promise<void> => new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  const stop = (): Promise<void> =>
    new Promise((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  await listen(0);
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    probes,
    lastRequestAt: () => lastRequestAt,
    setMode: (m) => void (mode = m),
    toolRoundTrips: () => requests.filter((r) => r.step === 'final').length,
    toolCalls: () => requests.filter((r) => r.step === 'tool').length,
    stop,
    start: () => listen(port),
    close: () => (server.listening ? stop() : Promise.resolve()),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => resolve(''));
  });
}

function parse(raw: string): Json {
  if (raw === '') return undefined;
  try {
    return JSON.parse(raw) as Json;
  } catch {
    return raw;
  }
}

function providerOf(path: string): Provider | 'other' {
  const p = path.split('?')[0] ?? '';
  if (/\/v1\/messages$/.test(p)) return 'anthropic';
  if (/\/responses$/.test(p)) return 'responses';
  if (/\/chat\/completions$/.test(p)) return 'chat';
  if (/\/models\/[^/]+:(stream)?[gG]enerateContent$/.test(p)) return 'gemini';
  return 'other';
}

async function handle(r: RecordedRequest, res: ServerResponse, opts: FakeModelOptions): Promise<void> {
  if (r.provider === 'other') return answerOther(r, res);
  const dialect = DIALECTS[r.provider];
  if (r.mode === 'hang') return; // never answered; stop() or close() drops the socket
  if (r.mode === 'rate-limit' || r.mode === 'server-error') {
    const status = r.mode === 'rate-limit' ? 429 : 500;
    return sendJson(res, status, dialect.error(status), status === 429 ? { 'retry-after': String(opts.retryAfterSeconds ?? 1) } : {});
  }
  const reply = scriptReply(r, dialect, opts);
  if (!dialect.wantsStream(r)) return sendJson(res, 200, dialect.json(reply, r));
  await dialect.stream(startSse(res), reply, r, r.mode === 'slow' ? (opts.slowMs ?? 200) : 0);
  res.end();
}

/** Side endpoints: token counting and model lists; anything else is a 404. */
function answerOther(r: RecordedRequest, res: ServerResponse): void {
  const p = r.path.split('?')[0] ?? '';
  if (p.endsWith('/count_tokens')) return sendJson(res, 200, { input_tokens: 1234 });
  if (p.endsWith(':countTokens')) return sendJson(res, 200, { totalTokens: 1234 });
  if (/\/models$/.test(p)) return sendJson(res, 200, { object: 'list', data: [{ id: 'fake-model', object: 'model' }], models: [] });
  sendJson(res, 404, { error: { message: `fake model server: no route ${r.method} ${r.path}` } });
}

function scriptReply(r: RecordedRequest, dialect: Dialect, opts: FakeModelOptions): Reply {
  const usage = opts.usage ?? { input: 1234, output: 56 };
  if (r.mode === 'long') {
    r.step = 'plain';
    return { text: longText(), usage };
  }
  const lead = opts.lead && leadStep(dialect.tools(r.body), r.body, opts.lead, r.n);
  if (lead) {
    r.step = lead.toolCall ? 'tool' : 'final';
    return { ...lead, usage };
  }
  if (dialect.hasToolResult(r.body)) {
    r.step = 'final';
    return { text: FINAL_TEXT, usage };
  }
  const call = pickToolCall(dialect.tools(r.body), opts.shellCommand ?? 'echo tai-tool-ok', r.n);
  if (!call) {
    r.step = 'plain';
    // Gemini's side calls (routing, next speaker) want JSON that fits their schema.
    const schema = at(r.body, 'generationConfig', 'responseJsonSchema') ?? at(r.body, 'generationConfig', 'responseSchema');
    return { text: schema === undefined ? 'tai fake title' : JSON.stringify(sampleOf(schema)), usage };
  }
  r.step = 'tool';
  return { text: 'I will run a command.', toolCall: call, usage };
}

/** About 9 KB over 160 numbered lines, so the claim check stores it. */
export function longText(): string {
  return Array.from({ length: 160 }, (_, i) => `This is a long answer from the fake model, line number ${i + 1}.`).join('\n');
}

/** The CLI's shell tool (else a list-files tool), its arguments filled from its schema. */
function pickToolCall(tools: ToolSpec[], command: string, n: number): Reply['toolCall'] {
  const byName = (names: string[]): ToolSpec | undefined => tools.find((t) => names.includes(t.name.toLowerCase()));
  const tool = byName(SHELL_TOOLS) ?? byName(LIST_TOOLS);
  if (!tool) return undefined;
  const props = at(tool.schema, 'properties');
  const args: Record<string, Json> = {};
  for (const [key, prop] of Object.entries(typeof props === 'object' && props !== null ? props : {})) {
    const isArray = String(at(prop, 'type') ?? '').toLowerCase() === 'array';
    if (key === 'command' || key === 'cmd') args[key] = isArray ? ['bash', '-lc', command] : command;
    else if (key === 'description') args[key] = 'Print a marker';
    else if (key === 'path' || key === 'dir_path') args[key] = '.';
    else if (key === 'pattern') args[key] = '*';
  }
  const required = at(tool.schema, 'required');
  for (const key of Array.isArray(required) ? required : []) {
    if (typeof key === 'string' && !(key in args)) args[key] = sampleOf(at(props, key));
  }
  return { id: `call_tai_${n}`, name: tool.name, args };
}

function sendJson(res: ServerResponse, status: number, body: Json, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}
