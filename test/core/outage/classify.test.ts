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
    ['an error with a JSON-RPC code, which only its decoder reads (src/core/decoders/acp.ts)',
      Object.assign(new Error('Internal error'), { code: -32603, data: { errorKind: 'transport_lost' } }),
      { kind: 'other', detail: 'Internal error' }],
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

describe('classifying what an agent reported, as its decoder read it', () => {
  const table: readonly [string, FailureInput, Classification][] = [
    ['a kind the protocol named, said by its name and words', { agent: { kind: 'model', named: 'errorKind overloaded', message: 'Internal error' } },
      { kind: 'model', detail: 'errorKind overloaded: Internal error' }],
    ['a named kind without words', { agent: { kind: 'rate_limit', named: 'rate limit rejected', message: '', resetAt: 1_791_601_200_000 } },
      { kind: 'rate_limit', detail: 'rate limit rejected', resetAt: 1_791_601_200_000 }],
    ['a named rate limit whose words say when it resets', { agent: { kind: 'rate_limit', named: 'code 429', message: 'Claude AI usage limit reached|1791601200' } },
      { kind: 'rate_limit', detail: 'code 429: Claude AI usage limit reached|1791601200', resetAt: 1_791_601_200_000 }],
    ['a kind named as none of the outages', { agent: { kind: 'other', named: 'assistant error', message: 'rate_limit_like words' } },
      { kind: 'other', detail: 'assistant error: rate_limit_like words' }],
    ['an HTTP status passed on, with the body in its words', { agent: { status: 529, message: 'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}' } },
      { kind: 'model', detail: 'HTTP 529: overloaded_error: Overloaded' }],
    ['an HTTP status under a protocol name', { agent: { status: 503, named: 'responseStreamDisconnected', message: 'stream error' } },
      { kind: 'model', detail: 'responseStreamDisconnected HTTP 503: stream error' }],
    ['a 429 whose words say when it resets', { agent: { status: 429, named: 'responseTooManyFailedAttempts', message: 'try again in 2 hours 5 minutes' } },
      { kind: 'rate_limit', detail: 'responseTooManyFailedAttempts HTTP 429: try again in 2 hours 5 minutes', resetAt: NOW + 125 * 60_000 }],
    ['words only', { agent: { message: 'stream disconnected before completion: error sending request' } },
      { kind: 'network', detail: 'stream disconnected before completion: error sending request' }],
    ['words nobody knows', { agent: { message: 'Invalid params' } }, { kind: 'other', detail: 'Invalid params' }],
    ['Claude\'s limit text', { text: 'You\'ve hit your limit · resets 2pm (Asia/Shanghai)' },
      { kind: 'rate_limit', detail: 'You\'ve hit your limit · resets 2pm (Asia/Shanghai)', resetAt: Date.UTC(2026, 9, 10, 6, 0) }],
    ['Claude\'s older limit text with its reset epoch', { text: 'Claude AI usage limit reached|1791601200' },
      { kind: 'rate_limit', detail: 'Claude AI usage limit reached|1791601200', resetAt: 1_791_601_200_000 }],
    ['an agent saying it is overloaded', { text: 'Overloaded' }, { kind: 'model', detail: 'Overloaded' }],
  ];

  it.each(table)('classifies %s', (_name, input, expected) => {
    expect(classify(input, NOW)).toEqual(expected);
  });

  it('turns codex\'s "try again in 2 hours 5 minutes" into a reset time', () => {
    const text = "You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) or try again in 2 hours 5 minutes.";
    expect(classify({ text }, NOW).resetAt).toBe(NOW + (2 * 60 + 5) * 60_000);
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
      { error: new Error('ACP connection closed') },
      { stderr: 'Error: connect ENETUNREACH 160.79.104.10:443', exitCode: 1 },
    ];
    expect(classifyEvidence(evidence, NOW)).toEqual({ kind: 'network', detail: 'Error: connect ENETUNREACH 160.79.104.10:443' });
  });

  it('gives a rate limit the reset time another piece names', () => {
    const evidence: FailureInput[] = [
      { agent: { status: 429, message: 'API Error: 429 rate_limit_error' } },
      { agent: { kind: 'rate_limit', named: 'rate limit rejected', message: '', resetAt: 1_791_601_200_000 } },
    ];
    expect(classifyEvidence(evidence, NOW)).toEqual({ kind: 'rate_limit', detail: 'HTTP 429: API Error: 429 rate_limit_error', resetAt: 1_791_601_200_000 });
  });

  it('is undefined without evidence, and other when nothing is named', () => {
    expect(classifyEvidence([], NOW)).toBeUndefined();
    expect(classifyEvidence([{ stderr: 'boom', exitCode: 2 }], NOW)).toEqual({ kind: 'other', detail: 'boom' });
  });
});
