import { request } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { classify, classifyEvidence, outageServiceOf, sayFailure, type Classification, type FailureInput } from '../../../src/core/outage/classify.js';

const NOW = Date.UTC(2026, 9, 9, 23, 0, 0);

/** A port on 127.0.0.1 that nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** What a thrown value rejects with. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/** A Node error with a code, as the runtime builds them. */
function nodeError(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

function fetchFailed(cause: unknown): TypeError {
  return new TypeError('fetch failed', { cause });
}

describe('classifying thrown errors', () => {
  it('reads a real refused fetch through its cause chain as a lost network', async () => {
    const port = await closedPort();
    const error = await rejection(fetch(`http://127.0.0.1:${port}/`));
    expect(error).toBeInstanceOf(TypeError);
    expect(classify({ error })).toEqual({ kind: 'network', detail: `connect ECONNREFUSED 127.0.0.1:${port}` });
  });

  it('reads a real socket hang-up from http.get as a lost network', async () => {
    const server = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const error = await rejection(
      new Promise((resolve, reject) => request({ host: '127.0.0.1', port }, resolve).on('error', reject).end()),
    );
    await new Promise<void>((resolve) => server.close(() => resolve()));
    expect(classify({ error })).toEqual({ kind: 'network', detail: 'ECONNRESET: socket hang up' });
  });

  const table: readonly [string, unknown, Classification][] = [
    ['an unreachable network', fetchFailed(nodeError('connect ENETUNREACH 10.231.0.1:443 - Local (0.0.0.0:0)', 'ENETUNREACH')),
      { kind: 'network', detail: 'connect ENETUNREACH 10.231.0.1:443 - Local (0.0.0.0:0)' }],
    ['no route to the host', fetchFailed(nodeError('connect EHOSTUNREACH 10.231.0.1:443', 'EHOSTUNREACH')),
      { kind: 'network', detail: 'connect EHOSTUNREACH 10.231.0.1:443' }],
    ['no DNS', fetchFailed(nodeError('getaddrinfo EAI_AGAIN api.anthropic.com', 'EAI_AGAIN')),
      { kind: 'network', detail: 'getaddrinfo EAI_AGAIN api.anthropic.com' }],
    ['an unknown host', fetchFailed(nodeError('getaddrinfo ENOTFOUND github.com', 'ENOTFOUND')),
      { kind: 'network', detail: 'getaddrinfo ENOTFOUND github.com' }],
    ['a silent drop caught by undici', fetchFailed(Object.assign(
      nodeError('Connect Timeout Error (attempted address: 10.231.0.1:443, timeout: 10000ms)', 'UND_ERR_CONNECT_TIMEOUT'),
      { name: 'ConnectTimeoutError' })),
      { kind: 'network', detail: 'UND_ERR_CONNECT_TIMEOUT: Connect Timeout Error (attempted address: 10.231.0.1:443, timeout: 10000ms)' }],
    ['a peer that closed mid-stream', fetchFailed(nodeError('other side closed', 'UND_ERR_SOCKET')),
      { kind: 'network', detail: 'UND_ERR_SOCKET: other side closed' }],
    ['a connect timeout from net', nodeError('connect ETIMEDOUT 140.82.121.3:443', 'ETIMEDOUT'),
      { kind: 'network', detail: 'connect ETIMEDOUT 140.82.121.3:443' }],
    ['happy eyeballs failing on both families', fetchFailed(Object.assign(
      new AggregateError([nodeError('connect ECONNREFUSED ::1:8080', 'ECONNREFUSED'), nodeError('connect ECONNREFUSED 127.0.0.1:8080', 'ECONNREFUSED')], ''),
      { code: 'ECONNREFUSED' })),
      { kind: 'network', detail: 'connect ECONNREFUSED 127.0.0.1:8080' }],
    ['a fetch that failed with no cause', new TypeError('fetch failed'), { kind: 'network', detail: 'fetch failed' }],
    ['an SDK connection error wrapping a reset', Object.assign(new Error('Connection error.'), { cause: nodeError('read ECONNRESET', 'ECONNRESET') }),
      { kind: 'network', detail: 'read ECONNRESET' }],
    ['an ACP agent that died', new Error('ACP connection closed'), { kind: 'other', detail: 'ACP connection closed' }],
    ['a plain bug', new RangeError('Invalid array length'), { kind: 'other', detail: 'Invalid array length' }],
    ['an ACP error thrown by the client', Object.assign(new Error('Internal error'), { code: -32603, data: { errorKind: 'transport_lost' } }),
      { kind: 'network', detail: 'errorKind transport_lost: Internal error' }],
    ['a thrown string', 'socket hang up', { kind: 'other', detail: 'socket hang up' }],
  ];

  it.each(table)('classifies %s', (_name, error, expected) => {
    expect(classify({ error })).toEqual(expected);
  });

  it('classifies an SDK rate-limit error by its status and honours its retry-after', () => {
    const error = Object.assign(new Error('429 {"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}'), {
      status: 429,
      headers: { 'Retry-After': '30' },
    });
    expect(classify({ error }, NOW)).toEqual({
      kind: 'rate_limit',
      detail: 'HTTP 429: rate_limit_error: slow down',
      resetAt: NOW + 30_000,
    });
  });

  it('lets a rate limit anywhere in the chain win over a lost network', () => {
    const error = Object.assign(new Error('usage limit reached'), { cause: nodeError('read ECONNRESET', 'ECONNRESET') });
    expect(classify({ error }).kind).toBe('rate_limit');
  });

  it('walks a cause chain that loops back on itself only once', () => {
    const outer = new Error('outer');
    const inner = new Error('inner', { cause: outer });
    Object.assign(outer, { cause: inner });
    expect(classify({ error: outer })).toEqual({ kind: 'other', detail: 'outer' });
  });
});

describe('classifying HTTP statuses from the model service', () => {
  const overloaded = '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}';
  const table: readonly [string, FailureInput, Classification][] = [
    ['429 with retry-after in seconds',
      { status: 429, body: '{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}', headers: { 'retry-after': '17' } },
      { kind: 'rate_limit', detail: 'HTTP 429: rate_limit_error: Number of request tokens has exceeded your per-minute rate limit', resetAt: NOW + 17_000 }],
    ['429 with retry-after as a date', { status: 429, headers: { 'retry-after': 'Sat, 10 Oct 2026 01:00:00 GMT' } },
      { kind: 'rate_limit', detail: 'HTTP 429', resetAt: Date.UTC(2026, 9, 10, 1, 0, 0) }],
    ['429 with retry-after-ms', { status: 429, headers: { 'retry-after-ms': '1500' } },
      { kind: 'rate_limit', detail: 'HTTP 429', resetAt: NOW + 1_500 }],
    ['429 with Anthropic\'s unified reset in epoch seconds', { status: 429, headers: { 'anthropic-ratelimit-unified-reset': '1791601200' } },
      { kind: 'rate_limit', detail: 'HTTP 429', resetAt: 1_791_601_200_000 }],
    ['429 with OpenAI\'s reset durations, the later one kept', { status: 429, headers: { 'x-ratelimit-reset-requests': '1s', 'x-ratelimit-reset-tokens': '6m0s' } },
      { kind: 'rate_limit', detail: 'HTTP 429', resetAt: NOW + 360_000 }],
    ['429 with no reset time', { status: 429, body: 'Too Many Requests' }, { kind: 'rate_limit', detail: 'HTTP 429: Too Many Requests' }],
    ['529 overloaded', { status: 529, body: overloaded }, { kind: 'model', detail: 'HTTP 529: overloaded_error: Overloaded' }],
    ['503', { status: 503, body: 'Service Unavailable' }, { kind: 'model', detail: 'HTTP 503: Service Unavailable' }],
    ['502', { status: 502 }, { kind: 'model', detail: 'HTTP 502' }],
    ['500 api_error', { status: 500, body: '{"type":"error","error":{"type":"api_error","message":"Internal server error"}}' },
      { kind: 'model', detail: 'HTTP 500: api_error: Internal server error' }],
    ['403 that is GitHub\'s rate limit', { status: 403, body: 'API rate limit exceeded for user ID 1234.' },
      { kind: 'rate_limit', detail: 'HTTP 403: API rate limit exceeded for user ID 1234.' }],
    ['401', { status: 401, body: '{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}' },
      { kind: 'other', detail: 'HTTP 401: authentication_error: invalid x-api-key' }],
  ];

  it.each(table)('classifies %s', (_name, input, expected) => {
    expect(classify(input, NOW)).toEqual(expected);
  });

  it('leaves out a relative reset time when no clock reading is given', () => {
    expect(classify({ status: 429, headers: { 'retry-after': '30' } })).toEqual({ kind: 'rate_limit', detail: 'HTTP 429' });
  });
});

describe('classifying what a tool printed', () => {
  const sshTrailer = 'fatal: Could not read from remote repository.\n\nPlease make sure you have the correct access rights\nand the repository exists.\n';
  const table: readonly [string, FailureInput, Classification][] = [
    ['git over https with no DNS',
      { stderr: "fatal: unable to access 'https://github.com/tai/tai.git/': Could not resolve host: github.com\n", exitCode: 128 },
      { kind: 'network', detail: "fatal: unable to access 'https://github.com/tai/tai.git/': Could not resolve host: github.com" }],
    ['git over https with the link down',
      { stderr: "fatal: unable to access 'https://github.com/tai/tai.git/': Failed to connect to github.com port 443 after 3 ms: Network is unreachable\n", exitCode: 128 },
      { kind: 'network', detail: "fatal: unable to access 'https://github.com/tai/tai.git/': Failed to connect to github.com port 443 after 3 ms: Network is unreachable" }],
    ['git:// with the link down',
      { stderr: 'fatal: unable to connect to 10.231.0.1:\n10.231.0.1[0: 10.231.0.1]: errno=Network is unreachable\n\n', exitCode: 128 },
      { kind: 'network', detail: '10.231.0.1[0: 10.231.0.1]: errno=Network is unreachable' }],
    ['git:// with the daemon gone',
      { stderr: 'fatal: unable to connect to 10.231.0.1:\n10.231.0.1[0: 10.231.0.1]: errno=Connection refused\n\n', exitCode: 128 },
      { kind: 'network', detail: '10.231.0.1[0: 10.231.0.1]: errno=Connection refused' }],
    ['git:// with no DNS',
      { stderr: 'fatal: unable to look up example.com (port 9418) (Temporary failure in name resolution)\n', exitCode: 128 },
      { kind: 'network', detail: 'fatal: unable to look up example.com (port 9418) (Temporary failure in name resolution)' }],
    ['git over ssh with no DNS, classified on the line before the trailer',
      { stderr: `ssh: Could not resolve hostname github.com: Temporary failure in name resolution\r\n${sshTrailer}`, exitCode: 128 },
      { kind: 'network', detail: 'ssh: Could not resolve hostname github.com: Temporary failure in name resolution' }],
    ['git over ssh with no route',
      { stderr: `ssh: connect to host github.com port 22: No route to host\r\n${sshTrailer}`, exitCode: 128 },
      { kind: 'network', detail: 'ssh: connect to host github.com port 22: No route to host' }],
    ['git over ssh after a silent cut',
      { stderr: `ssh: connect to host github.com port 22: Connection timed out\r\n${sshTrailer}`, exitCode: 128 },
      { kind: 'network', detail: 'ssh: connect to host github.com port 22: Connection timed out' }],
    ['git over ssh with a refused key, which is not an outage',
      { stderr: `git@github.com: Permission denied (publickey).\r\n${sshTrailer}`, exitCode: 128 },
      { kind: 'other', detail: 'git@github.com: Permission denied (publickey).' }],
    ['a push that lost the connection mid-pack',
      { stderr: 'Writing objects: 100% (429/429), 1.20 MiB | 2.00 MiB/s, done.\nerror: RPC failed; curl 56 Recv failure: Connection reset by peer\nsend-pack: unexpected disconnect while reading sideband packet\nfatal: the remote end hung up unexpectedly\n', exitCode: 1 },
      { kind: 'network', detail: 'error: RPC failed; curl 56 Recv failure: Connection reset by peer' }],
    ['a rejected push whose progress counts 429 objects',
      { stderr: "Enumerating objects: 429, done.\nWriting objects: 100% (429/429), done.\n ! [rejected]        main -> main (fetch first)\nerror: failed to push some refs to 'github.com:tai/tai.git'\n", exitCode: 1 },
      { kind: 'other', detail: "error: failed to push some refs to 'github.com:tai/tai.git'" }],
    ['gh with no connection',
      { stderr: 'error connecting to api.github.com\ncheck your internet connection or https://githubstatus.com\n', exitCode: 1 },
      { kind: 'network', detail: 'error connecting to api.github.com' }],
    ['gh over its rate limit',
      { stderr: 'HTTP 403: API rate limit exceeded for user ID 1234. (https://api.github.com/graphql)\n', exitCode: 1 },
      { kind: 'rate_limit', detail: 'HTTP 403: API rate limit exceeded for user ID 1234. (https://api.github.com/graphql)' }],
    ['gh with GitHub unavailable',
      { stderr: 'HTTP 503: Service Unavailable (https://api.github.com/repos/tai/tai/pulls)\n', exitCode: 1 },
      { kind: 'network', detail: 'HTTP 503: Service Unavailable (https://api.github.com/repos/tai/tai/pulls)' }],
    ['curl with no DNS', { stderr: 'curl: (6) Could not resolve host: example.com\n', exitCode: 6, command: 'curl' },
      { kind: 'network', detail: 'curl: (6) Could not resolve host: example.com' }],
    ['curl refused', { stderr: "curl: (7) Failed to connect to 10.231.0.1 port 80 after 0 ms: Couldn't connect to server\n", exitCode: 7, command: 'curl' },
      { kind: 'network', detail: "curl: (7) Failed to connect to 10.231.0.1 port 80 after 0 ms: Couldn't connect to server" }],
    ['curl timed out', { stderr: 'curl: (28) Connection timed out after 5001 milliseconds\n', exitCode: 28, command: 'curl' },
      { kind: 'network', detail: 'curl: (28) Connection timed out after 5001 milliseconds' }],
    ['a silent curl -s by its exit code', { stderr: '', exitCode: 6, command: '/usr/bin/curl' },
      { kind: 'network', detail: 'curl exited 6' }],
    ['a silent curl -s that got a 404', { stderr: '', exitCode: 22, command: 'curl' }, { kind: 'other', detail: 'exit code 22' }],
    ['curl told 429 by the server', { stderr: 'curl: (22) The requested URL returned error: 429\n', exitCode: 22, command: 'curl' },
      { kind: 'rate_limit', detail: 'curl: (22) The requested URL returned error: 429' }],
    ['exit code 6 from a program that is not curl', { stderr: '', exitCode: 6, command: 'make' }, { kind: 'other', detail: 'exit code 6' }],
    ['wget with the network down', { stderr: 'wget: unable to resolve host address ‘example.com’\n', exitCode: 4, command: 'wget' },
      { kind: 'network', detail: 'wget exited 4: wget: unable to resolve host address ‘example.com’' }],
  ];

  it.each(table)('classifies %s', (_name, input, expected) => {
    expect(classify(input)).toEqual(expected);
  });
});

describe('classifying agent protocol errors', () => {
  const table: readonly [string, unknown, Classification][] = [
    ['an ACP rate_limit', { code: -32603, message: 'Internal error', data: { errorKind: 'rate_limit' } },
      { kind: 'rate_limit', detail: 'errorKind rate_limit: Internal error' }],
    ['an ACP overloaded', { code: -32603, message: 'Internal error', data: { errorKind: 'overloaded' } },
      { kind: 'model', detail: 'errorKind overloaded: Internal error' }],
    ['an ACP transport_lost', { code: -32603, message: 'Internal error', data: { errorKind: 'transport_lost' } },
      { kind: 'network', detail: 'errorKind transport_lost: Internal error' }],
    ['Gemini\'s JSON-RPC 429', { code: 429, message: 'Resource has been exhausted (e.g. check quota).' },
      { kind: 'rate_limit', detail: 'code 429: Resource has been exhausted (e.g. check quota).' }],
    ['a JSON-RPC response carrying the error', { jsonrpc: '2.0', id: 3, error: { code: -32603, message: 'Internal error', data: { errorKind: 'overloaded' } } },
      { kind: 'model', detail: 'errorKind overloaded: Internal error' }],
    ['codex-acp over its usage limit',
      { code: -32603, message: "You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) or try again in 2 hours 5 minutes.", data: { codexErrorInfo: 'usageLimitExceeded' } },
      { kind: 'rate_limit', detail: "usageLimitExceeded: You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) or try again in 2 hours 5 minutes." }],
    ['codex-acp unable to connect', { code: -32603, message: 'stream error', data: { codexErrorInfo: { httpConnectionFailed: { httpStatusCode: null } } } },
      { kind: 'network', detail: 'httpConnectionFailed: stream error' }],
    ['codex-acp disconnected with a 503', { code: -32603, message: 'stream error', data: { codexErrorInfo: { responseStreamDisconnected: { httpStatusCode: 503 } } } },
      { kind: 'model', detail: 'responseStreamDisconnected HTTP 503: stream error' }],
    ['codex-acp overloaded', { code: -32603, message: 'server overloaded', data: { codexErrorInfo: 'serverOverloaded' } },
      { kind: 'model', detail: 'serverOverloaded: server overloaded' }],
    ['codex-acp 0.16 with a 500 (snake case)',
      { code: -32603, message: 'Internal error', data: { message: 'We’re currently experiencing high demand, which may cause temporary errors.', codex_error_info: 'internal_server_error' } },
      { kind: 'model', detail: 'internalServerError: Internal error' }],
    ['codex-acp 0.16 over its retries after 429s (snake case)',
      { code: -32603, message: 'Internal error', data: { message: 'exceeded retry limit, last status: 429 Too Many Requests', codex_error_info: { response_too_many_failed_attempts: { http_status_code: 429 } } } },
      { kind: 'rate_limit', detail: 'responseTooManyFailedAttempts HTTP 429: Internal error' }],
    ['codex exec failing a turn on a 500', { type: 'turn.failed', error: { message: 'We’re currently experiencing high demand, which may cause temporary errors.' } },
      { kind: 'model', detail: 'We’re currently experiencing high demand, which may cause temporary errors.' }],
    ['opencode acp on a 500', { code: -32603, message: 'Internal error: The server had an error while processing your request.', data: { service: 'session', errorName: 'APIError' } },
      { kind: 'model', detail: 'Internal error: The server had an error while processing your request.' }],
    ['Claude\'s result with a 429',
      { type: 'result', subtype: 'success', is_error: true, api_error_status: 429, result: 'API Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed your rate limit"}}' },
      { kind: 'rate_limit', detail: 'HTTP 429: rate_limit_error: This request would exceed your rate limit' }],
    ['Claude\'s result with a 529',
      { type: 'result', subtype: 'success', is_error: true, api_error_status: 529, result: 'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}' },
      { kind: 'model', detail: 'HTTP 529: overloaded_error: Overloaded' }],
    ['Claude\'s result after losing the connection',
      { type: 'result', subtype: 'success', is_error: true, api_error_status: null, result: 'API Error: Connection error.' },
      { kind: 'network', detail: 'API Error: Connection error.' }],
    ['Claude\'s successful result', { type: 'result', subtype: 'success', is_error: false, result: 'done' },
      { kind: 'other', detail: 'the result is not an error' }],
    ['Claude retrying a 529', { type: 'system', subtype: 'api_retry', attempt: 2, error_status: 529, error: 'overloaded_error' },
      { kind: 'model', detail: 'HTTP 529: overloaded_error' }],
    ['Claude retrying after a connection error', { type: 'system', subtype: 'api_retry', attempt: 1, error_status: null, error: 'Connection error.' },
      { kind: 'network', detail: 'Connection error.' }],
    ['Claude\'s rejected rate_limit_event',
      { type: 'rate_limit_event', rate_limit_info: { status: 'rejected', resetsAt: 1778565600, rateLimitType: 'five_hour' } },
      { kind: 'rate_limit', detail: 'rate limit rejected (five_hour)', resetAt: 1_778_565_600_000 }],
    ['Claude\'s allowed_warning rate_limit_event', { type: 'rate_limit_event', rate_limit_info: { status: 'allowed_warning' } },
      { kind: 'other', detail: 'rate limit status allowed_warning, not a failure' }],
    ['Claude\'s assistant message with error rate_limit', { type: 'assistant', message: { content: [] }, error: 'rate_limit' },
      { kind: 'rate_limit', detail: 'assistant error: rate_limit' }],
    ['Claude\'s assistant message with error server_error', { type: 'assistant', message: { content: [] }, error: 'server_error' },
      { kind: 'model', detail: 'assistant error: server_error' }],
    ['Claude\'s limit text', 'You\'ve hit your limit · resets 2pm (Asia/Shanghai)',
      { kind: 'rate_limit', detail: 'You\'ve hit your limit · resets 2pm (Asia/Shanghai)' }],
    ['Claude\'s older limit text with its reset epoch', 'Claude AI usage limit reached|1791601200',
      { kind: 'rate_limit', detail: 'Claude AI usage limit reached|1791601200', resetAt: 1_791_601_200_000 }],
    ['codex exec failing its turn on a lost stream',
      { type: 'turn.failed', error: { message: 'stream disconnected before completion: error sending request for url (https://chatgpt.com/backend-api/codex/responses)' } },
      { kind: 'network', detail: 'stream disconnected before completion: error sending request for url (https://chatgpt.com/backend-api/codex/responses)' }],
    ['codex exec out of retries on 429', { type: 'error', message: 'exceeded retry limit, last status: 429 Too Many Requests' },
      { kind: 'rate_limit', detail: 'exceeded retry limit, last status: 429 Too Many Requests' }],
    ['an agent saying it is overloaded', 'Overloaded', { kind: 'model', detail: 'Overloaded' }],
    ['an agent error nobody knows', { code: -32602, message: 'Invalid params' }, { kind: 'other', detail: 'Invalid params' }],
  ];

  it.each(table)('classifies %s', (_name, agentError, expected) => {
    expect(classify({ agentError })).toEqual(expected);
  });

  it('turns codex\'s "try again in 2 hours 5 minutes" into a reset time', () => {
    const agentError = { type: 'error', message: "You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) or try again in 2 hours 5 minutes." };
    expect(classify({ agentError }, NOW).resetAt).toBe(NOW + (2 * 60 + 5) * 60_000);
  });

  it('reads the reset time in the words of an ACP error that names errorKind rate_limit', () => {
    const agentError = { code: -32603, message: 'Claude AI usage limit reached|1791601200', data: { errorKind: 'rate_limit' } };
    expect(classify({ agentError }, NOW)).toEqual({
      kind: 'rate_limit',
      detail: 'errorKind rate_limit: Claude AI usage limit reached|1791601200',
      resetAt: 1_791_601_200_000,
    });
  });

  it('reads the reset time of an ACP rate_limit thrown by the client, as the acp runner sees it', () => {
    const error = Object.assign(new Error("You've hit your limit · resets 2pm (Asia/Shanghai)"), { code: -32603, data: { errorKind: 'rate_limit' } });
    expect(classify({ error }, NOW)).toEqual({
      kind: 'rate_limit',
      detail: "errorKind rate_limit: You've hit your limit · resets 2pm (Asia/Shanghai)",
      resetAt: Date.UTC(2026, 9, 10, 6, 0),
    });
  });

  it('reads the reset time in the words of codex-acp\'s usageLimitExceeded', () => {
    const agentError = { code: -32603, message: "You've hit your usage limit. Try again in 2 hours 5 minutes.", data: { codexErrorInfo: 'usageLimitExceeded' } };
    expect(classify({ agentError }, NOW).resetAt).toBe(NOW + 125 * 60_000);
  });

  it('keeps an ACP rate_limit without a reset time in its words as it is', () => {
    const agentError = { code: -32603, message: 'Internal error', data: { errorKind: 'rate_limit' } };
    expect(classify({ agentError }, NOW)).toEqual({ kind: 'rate_limit', detail: 'errorKind rate_limit: Internal error' });
  });

  it('turns Gemini\'s retryDelay into a reset time', () => {
    const agentError = { code: 429, message: 'RESOURCE_EXHAUSTED {"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"17s"}' };
    expect(classify({ agentError }, NOW).resetAt).toBe(NOW + 17_000);
  });
});

describe('the outage a classification belongs to', () => {
  it('is the network or the model service, and never a rate limit', () => {
    expect(outageServiceOf({ kind: 'network', detail: '' })).toBe('network');
    expect(outageServiceOf({ kind: 'model', detail: '' })).toBe('model');
    expect(outageServiceOf({ kind: 'rate_limit', detail: '' })).toBeUndefined();
    expect(outageServiceOf({ kind: 'other', detail: '' })).toBeUndefined();
  });
});

describe('saying a failure in one line', () => {
  it('puts the kind first, once, and leaves other failures as they are', () => {
    expect(sayFailure({ kind: 'rate_limit', detail: 'code 429' }, 'Too many requests')).toBe('rate limited: Too many requests');
    expect(sayFailure({ kind: 'rate_limit', detail: 'code 429' }, 'rate limited: Too many requests')).toBe('rate limited: Too many requests');
    expect(sayFailure({ kind: 'network', detail: 'ECONNRESET' }, 'fetch failed')).toBe('connection lost: fetch failed');
    expect(sayFailure({ kind: 'model', detail: 'HTTP 529' }, '')).toBe('model service down');
    expect(sayFailure({ kind: 'other', detail: 'x' }, 'Invalid params')).toBe('Invalid params');
  });
});

describe('classifying one failure from several pieces of evidence', () => {
  it('lets the first piece that names a kind decide', () => {
    const evidence: FailureInput[] = [
      { agentError: new Error('ACP connection closed') },
      { stderr: 'Error: connect ENETUNREACH 160.79.104.10:443', exitCode: 1 },
    ];
    expect(classifyEvidence(evidence, NOW)).toEqual({ kind: 'network', detail: 'Error: connect ENETUNREACH 160.79.104.10:443' });
  });

  it('gives a rate limit the reset time another piece names', () => {
    const evidence: FailureInput[] = [
      { agentError: { type: 'result', subtype: 'success', is_error: true, api_error_status: 429, result: 'API Error: 429 rate_limit_error' } },
      { agentError: { type: 'rate_limit_event', rate_limit_info: { status: 'rejected', resetsAt: 1791601200 } } },
    ];
    expect(classifyEvidence(evidence, NOW)).toEqual({ kind: 'rate_limit', detail: 'HTTP 429: API Error: 429 rate_limit_error', resetAt: 1_791_601_200_000 });
  });

  it('is undefined without evidence, and other when nothing is named', () => {
    expect(classifyEvidence([], NOW)).toBeUndefined();
    expect(classifyEvidence([{ stderr: 'boom', exitCode: 2 }], NOW)).toEqual({ kind: 'other', detail: 'boom' });
  });
});
