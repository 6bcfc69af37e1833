/**
 * The folder `src/core/outage/`: failures sorted, the probe schedule, rate limits' reset times. This file: the one
 * classifier (docs/outages.md, "The model"), sorting every failure into a lost network, a model service down, a
 * rate limit or other. A rate limit is checked first and always wins: it is reported, never waited out
 * (docs/spec.md, "Rate limits are not outages"). It knows no agent's format: the decoders read theirs.
 */
import { resetFromHeaders, resetFromText, type HeaderReader } from './reset-time.js';

/** What kind of failure happened; only `network` and `model` are outages. */
export type FailureKind = 'network' | 'model' | 'rate_limit' | 'other';

/** The service an outage belongs to. */
export type OutageService = Extract<FailureKind, 'network' | 'model'>;

/** The verdict on one failure. */
export interface Classification {
  readonly kind: FailureKind;
  /** The line or message that decided, short enough for a log row. */
  readonly detail: string;
  /** When a retry-after or reset time is known: the epoch ms it points at. */
  readonly resetAt?: number;
}

/**
 * A failure an agent reported, in no agent's format: what its decoder read from the protocol's own fields.
 * Without `kind` or `status` its words alone sort it.
 */
export interface AgentFailure {
  /** The agent's words (an error's message, a result's text); may be empty. */
  readonly message: string;
  /** The kind the protocol named itself (ACP's errorKind, Codex's codexErrorInfo, Claude's assistant error, a rejected rate limit). */
  readonly kind?: FailureKind;
  /** How the protocol named it, said first in the detail ("errorKind rate_limit", "usageLimitExceeded", "code 429"). */
  readonly named?: string;
  /** The model service's HTTP status the agent passed on. */
  readonly status?: number;
  /** When a limit resets (epoch ms), when the protocol gives it in a field. */
  readonly resetAt?: number;
}

/**
 * One failure by where it came from: a thrown value (its `.cause` chain walked), a model service's HTTP reply,
 * a tool's stderr (its HTTP failures too; `command` names the program whose exit codes only it defines), an
 * agent's report as its decoder read it, or plain words.
 */
export type FailureInput =
  | { readonly error: unknown }
  | { readonly status: number; readonly body?: string; readonly headers?: Readonly<Record<string, string>> }
  | { readonly stderr: string; readonly exitCode?: number; readonly command?: string }
  | { readonly agent: AgentFailure }
  | { readonly text: string };

/**
 * Sorts one failure into network, model, rate limit or other; `now` (epoch ms) turns a relative retry time
 * into `resetAt`, left out without `now`.
 */
export function classify(input: FailureInput, now?: number): Classification {
  if ('error' in input) return classifyThrown(input.error, now);
  if ('status' in input) return classifyStatus(input.status, input.body ?? '', headerReader(input.headers), now);
  if ('stderr' in input) return classifyToolOutput(input.stderr, input.exitCode, input.command, now);
  if ('agent' in input) return classifyAgent(input.agent, now);
  return classifyText(input.text, 'agent', now);
}

/**
 * Sorts a failure told by several pieces, most decisive first: the first naming a kind decides. A rate limit
 * without a reset time takes another rate-limit piece's (Claude's `rate_limit_event` has `resetsAt`, its 429
 * `result` not). Undefined without evidence.
 */
export function classifyEvidence(evidence: readonly FailureInput[], now?: number): Classification | undefined {
  const verdicts = evidence.map((input) => classify(input, now));
  const decided = verdicts.find((verdict) => verdict.kind !== 'other') ?? verdicts[0];
  if (decided?.kind !== 'rate_limit' || decided.resetAt !== undefined) return decided;
  return withReset(decided, verdicts.find((verdict) => verdict.kind === 'rate_limit' && verdict.resetAt !== undefined)?.resetAt);
}

/** How each kind is said at the head of a failure's one-line summary ("rate limited: ..."); `other` says nothing. */
export const FAILURE_WORDS: Readonly<Record<FailureKind, string>> = {
  network: 'connection lost',
  model: 'model service down',
  rate_limit: 'rate limited',
  other: '',
};

/** A failure's message with its kind said first ("rate limited: Too many requests"), once. */
export function sayFailure(classification: Classification, message: string): string {
  const words = FAILURE_WORDS[classification.kind];
  if (words === '' || message.startsWith(words)) return message;
  return message === '' ? words : `${words}: ${message}`;
}

/** The outage service a classification opens or joins, if it is an outage at all. */
export function outageServiceOf(classification: Classification): OutageService | undefined {
  const { kind } = classification;
  return kind === 'network' || kind === 'model' ? kind : undefined;
}

/** A detail is clipped to this many characters. */
const DETAIL_MAX = 300;

/** Node and undici codes of a lost connection (as Node 20 and undici name them). */
const NETWORK_CODES: ReadonlySet<string> = new Set([
  'ENETUNREACH', 'ENETDOWN', 'EHOSTUNREACH', 'EAI_AGAIN', 'ENOTFOUND', 'ECONNREFUSED', 'ECONNRESET',
  'ECONNABORTED', 'ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_SOCKET',
]);

/** curl's exit codes for "could not resolve", "could not connect", "timed out", and send/receive failures. */
const CURL_NETWORK_EXITS: ReadonlySet<number> = new Set([5, 6, 7, 28, 55, 56]);
/** wget's exit code for a network failure. */
const WGET_NETWORK_EXIT = 4;

/** Texts of a rate or usage limit, from HTTP, Claude, Codex, Gemini and GitHub. */
const RATE_LIMIT_TEXT: readonly RegExp[] = [
  /\b(?:HTTP|status|error|code)\b[^\n\d]{0,12}429\b/i,
  /\b429 Too Many Requests\b/i,
  /too many requests/i,
  /rate[ _-]?limit/i,
  /usage[ _-]?limit/i,
  /usageLimitExceeded|rateLimitExceeded/,
  /you(?:'|’)ve hit your/i,
  /\bRESOURCE_EXHAUSTED\b/,
  /insufficient_quota|quota exceeded|exceeded your current quota/i,
];

/**
 * Codex's word (codex exec, newer codex-acp) for a retry that waits for the
 * network with no end: a live agent saying it, never ending its turn, has lost the connection.
 */
const WAITING_FOR_NETWORK = /^Reconnecting\.\.\. waiting for network\b/;

/** True when an agent's error says it waits for the network by itself, with no end to its retries. */
export function waitsForNetwork(message: string): boolean {
  return WAITING_FOR_NETWORK.test(message.trim());
}

/** Texts of a lost connection, as git, ssh, curl, gh, Node and the agent CLIs print them; the specific ones first. */
const NETWORK_TEXT: readonly RegExp[] = [
  WAITING_FOR_NETWORK,
  /could not resolve host/i,
  /temporary failure in name resolution/i,
  /name or service not known/i,
  /network is unreachable/i,
  /no route to host/i,
  /connection timed out/i,
  /operation timed out/i,
  /connection refused/i,
  /connection reset by peer/i,
  /\b(?:ENETUNREACH|ENETDOWN|EHOSTUNREACH|EAI_AGAIN|ENOTFOUND|ECONNREFUSED|ECONNRESET|ETIMEDOUT)\b/,
  /\bUND_ERR_(?:CONNECT_TIMEOUT|SOCKET)\b/,
  /RPC failed; curl (?:5|6|7|18|28|55|56)\b/,
  /\bcurl: \((?:5|6|7|28|55|56)\)/,
  /unable to look up/i,
  /failed to connect to/i,
  /couldn't connect to server/i,
  /error connecting to/i,
  /check your internet connection/i,
  /stream disconnected before completion/i,
  /error sending request/i,
  /transport_lost/,
  /\bconnection error\b/i,
  /request timed out/i,
  /unable to connect/i,
  /\bfetch failed\b/i,
];

/** Texts of the model service failing (an agent's or an API's words, never a tool's). */
const MODEL_TEXT: readonly RegExp[] = [
  /overloaded/i,
  /\bapi_error\b/,
  /\bserver_error\b/,
  /internal server error/i,
  /service unavailable/i,
  /bad gateway/i,
  /internalServerError|serverOverloaded/,
  // Codex's words for a 500 (the body's message is dropped), opencode's for OpenAI's 500.
  /currently experiencing high demand/i,
  /server had an error while processing your request/i,
  /\b(?:HTTP|status|error|code)\b[^\n\d]{0,12}5(?:00|02|03|04|29)\b/i,
];

/** A tool's HTTP answer that means the remote is unreachable for now (gh's "HTTP 503: ..."). */
const TOOL_UNREACHABLE_STATUS = /\bHTTP\/?[\d.]*\s*(?:502|503|504)\b/i;

/** ssh prints this after every failure, network or not: the line before it decides. */
const SSH_TRAILER = /could not read from remote repository/i;

/** Who printed a text decides which patterns apply to it. */
type TextSource = 'tool' | 'agent';

/** Ranks the kinds when several links of one failure disagree: a rate limit always wins. */
const RANK: Readonly<Record<FailureKind, number>> = { rate_limit: 3, network: 2, model: 1, other: 0 };

function classifyText(text: string, source: TextSource, now: number | undefined): Classification {
  const lines = text.split(/\r\n|\r|\n/).map((line) => line.trim()).filter((line) => line !== '');
  // Patterns are tried in order, most specific first, so the line that says why wins over
  // a general one ("errno=Network is unreachable" over "fatal: unable to connect to ...").
  const find = (patterns: readonly RegExp[]): string | undefined => {
    for (const pattern of patterns) {
      const line = lines.find((candidate) => pattern.test(candidate));
      if (line !== undefined) return line;
    }
    return undefined;
  };
  const limited = find(RATE_LIMIT_TEXT);
  if (limited !== undefined) return withReset({ kind: 'rate_limit', detail: clip(limited) }, resetFromText(text, now));
  const lost = find(NETWORK_TEXT) ?? (source === 'tool' ? find([TOOL_UNREACHABLE_STATUS]) : undefined);
  if (lost !== undefined) return { kind: 'network', detail: clip(lost) };
  const down = source === 'agent' ? find(MODEL_TEXT) : undefined;
  if (down !== undefined) return { kind: 'model', detail: clip(down) };
  return { kind: 'other', detail: clip(lines.at(-1) ?? '') };
}

function classifyToolOutput(
  stderr: string,
  exitCode: number | undefined,
  command: string | undefined,
  now: number | undefined,
): Classification {
  const lines = stderr.split(/\r\n|\r|\n/);
  const trailer = lines.findIndex((line) => SSH_TRAILER.test(line));
  // "Could not read from remote repository" also follows an auth failure: only ssh's own line says which.
  const deciding =
    trailer >= 0 ? lines.slice(0, trailer).reverse().find((line) => line.trim() !== '') ?? lines[trailer] ?? '' : stderr;
  const verdict = classifyText(deciding, 'tool', now);
  if (verdict.kind !== 'other' || exitCode === undefined) return verdict;
  const program = (command ?? '').split('/').at(-1) ?? '';
  if (program === 'curl' && CURL_NETWORK_EXITS.has(exitCode)) {
    return { kind: 'network', detail: clip(`curl exited ${exitCode}${verdict.detail === '' ? '' : `: ${verdict.detail}`}`) };
  }
  if (program === 'wget' && exitCode === WGET_NETWORK_EXIT) {
    return { kind: 'network', detail: clip(`wget exited ${exitCode}${verdict.detail === '' ? '' : `: ${verdict.detail}`}`) };
  }
  return verdict.detail === '' ? { kind: 'other', detail: `exit code ${exitCode}` } : verdict;
}

function classifyStatus(status: number, body: string, header: HeaderReader, now: number | undefined): Classification {
  const detail = clip(`HTTP ${status}${describeBody(body)}`);
  const fromBody = classifyText(body, 'agent', now);
  if (status === 429 || fromBody.kind === 'rate_limit') {
    return withReset({ kind: 'rate_limit', detail }, resetFromHeaders(header, now) ?? fromBody.resetAt);
  }
  if (status === 529 || status === 500 || status === 502 || status === 503 || status === 504) {
    return { kind: 'model', detail };
  }
  return { kind: 'other', detail };
}

function classifyThrown(thrown: unknown, now: number | undefined): Classification {
  let best: Classification | undefined;
  for (const verdict of chainOf(thrown).map((link) => classifyLink(link, now))) {
    if (best === undefined || RANK[verdict.kind] > RANK[best.kind]) best = verdict;
    // Same kind: a deeper link (a cause) is more specific, unless only the shallower one knows a reset time;
    // for `other`, the outermost message stays, since that is what the caller saw.
    else if (verdict.kind === best.kind && verdict.kind !== 'other' && (verdict.resetAt !== undefined || best.resetAt === undefined)) {
      best = verdict;
    }
  }
  return best ?? { kind: 'other', detail: clip(String(thrown)) };
}

function classifyLink(link: unknown, now: number | undefined): Classification {
  if (!isRecord(link)) return classifyText(String(link), 'agent', now);
  const message = typeof link['message'] === 'string' ? link['message'] : '';
  const code = link['code'];
  if (typeof code === 'string' && NETWORK_CODES.has(code)) {
    return { kind: 'network', detail: clip(message.includes(code) ? message : `${code}: ${message}`) };
  }
  const status = link['status'];
  if (typeof status === 'number' && status >= 400 && status <= 599) {
    return classifyStatus(status, message, headerReader(link['headers']), now);
  }
  return classifyText(message === '' ? String(link) : message, 'agent', now);
}

/** A decoded agent failure: the kind it named, else its HTTP status, else its words. */
function classifyAgent(failure: AgentFailure, now: number | undefined): Classification {
  const { message, named } = failure;
  if (failure.kind !== undefined) {
    const detail = clip(`${named ?? failure.kind}${message === '' ? '' : `: ${message}`}`);
    // A limit named by its kind still says when it resets only in its words (claude-agent-acp, codex-acp).
    if (failure.kind === 'rate_limit') return withReset({ kind: 'rate_limit', detail }, failure.resetAt ?? resetFromText(message, now));
    return { kind: failure.kind, detail };
  }
  if (failure.status !== undefined) {
    const verdict = classifyStatus(failure.status, message, headerReader(undefined), now);
    const said = named === undefined ? verdict : { ...verdict, detail: clip(`${named} ${verdict.detail}`) };
    if (said.kind !== 'rate_limit' || said.resetAt !== undefined) return said;
    return withReset(said, failure.resetAt ?? resetFromText(message, now));
  }
  return withReset(classifyText(message, 'agent', now), failure.resetAt);
}

/** " overloaded_error: Overloaded" from an API error body, or its first line. */
function describeBody(body: string): string {
  if (body.trim() === '') return '';
  const brace = body.indexOf('{');
  const parsed = brace < 0 ? undefined : parseJson(body.slice(brace));
  const error = isRecord(parsed) && isRecord(parsed['error']) ? parsed['error'] : undefined;
  if (error !== undefined) {
    const type = typeof error['type'] === 'string' ? error['type'] : '';
    const message = typeof error['message'] === 'string' ? error['message'] : '';
    return `: ${[type, message].filter((part) => part !== '').join(': ')}`;
  }
  return `: ${body.trim().split(/\r?\n/)[0] ?? ''}`;
}

/** The links of a thrown value: itself, its `.cause` chain and an AggregateError's `errors`, each once. */
function chainOf(thrown: unknown): unknown[] {
  const links: unknown[] = [];
  const seen = new Set<unknown>();
  const visit = (value: unknown): void => {
    if (value === undefined || seen.has(value) || links.length >= 16) return;
    seen.add(value);
    links.push(value);
    if (!isRecord(value)) return;
    const errors = value['errors'];
    if (Array.isArray(errors)) errors.forEach(visit);
    visit(value['cause']);
  };
  visit(thrown);
  return links;
}

/** Reads headers given as a plain record (any case) or as a fetch `Headers`. */
function headerReader(headers: unknown): HeaderReader {
  if (isRecord(headers) && typeof headers['get'] === 'function') {
    const get = headers['get'] as (name: string) => unknown;
    return (name) => {
      const value: unknown = get.call(headers, name);
      return typeof value === 'string' ? value : undefined;
    };
  }
  const lower = new Map<string, string>();
  if (isRecord(headers)) {
    for (const [name, value] of Object.entries(headers)) if (typeof value === 'string') lower.set(name.toLowerCase(), value);
  }
  return (name) => lower.get(name);
}

function withReset(verdict: Classification, resetAt: number | undefined): Classification {
  return resetAt === undefined ? verdict : { ...verdict, resetAt };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null;
}

function clip(text: string): string {
  return text.length <= DETAIL_MAX ? text : `${text.slice(0, DETAIL_MAX - 1)}…`;
}
