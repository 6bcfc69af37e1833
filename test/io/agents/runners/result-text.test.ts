import { describe, expect, it } from 'vitest';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ResultText } from '../../../../src/io/agents/runners/result-text.js';
import { describeError } from '../../../../src/io/agents/runners/acp/acp.js';

describe('the bounded result text', () => {
  it('keeps everything up to its cap', () => {
    const r = new ResultText(10);
    r.append('abcde');
    r.append('fghij');
    expect(r.toString()).toBe('abcdefghij');
    expect(r.dropped).toBe(0);
  });

  it('keeps the first and the last half past its cap and says how much of the middle went', () => {
    const r = new ResultText(10);
    for (const piece of ['abc', 'def', 'ghi', 'jkl', 'mno', 'pqrs', 't']) r.append(piece);
    expect(r.dropped).toBe(10);
    expect(r.toString()).toBe('abcde\n[... 10 characters dropped: the result was longer than 10 ...]\npqrst');
  });
});

describe('classifying a failed ACP turn', () => {
  it('names rate limits, overloads, lost transports and a dead agent', () => {
    const rpc = (code: number, message: string, data?: unknown) => Object.assign(new Error(message), { code, data });
    expect(describeError(rpc(429, 'Too many requests'))).toBe('rate limited: Too many requests');
    expect(describeError(rpc(-32603, 'limit', { codexErrorInfo: 'usageLimitExceeded' }))).toBe('rate limited: limit');
    expect(describeError(rpc(-32603, 'busy', { errorKind: 'overloaded' }))).toBe('model service down: busy');
    expect(describeError(rpc(-32603, 'socket', { errorKind: 'transport_lost' }))).toBe('connection lost: socket');
    expect(describeError(new Error('ACP connection closed'))).toBe('the agent exited mid-turn (ACP connection closed)');
    expect(describeError(new TypeError('fetch failed', { cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }) }))).toBe('connection lost: fetch failed');
    expect(describeError(rpc(429, 'rate limited: slow down'))).toBe('rate limited: slow down');
    expect(describeError('odd')).toBe('odd');
  });
});

describe("the result text's memory", () => {
  it('holds less than 3 bytes a unit of a stream of 6-unit tokens, 8 agents of 64 Ki units each', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    gc();
    const before = process.memoryUsage().heapUsed;
    const results = Array.from({ length: 8 }, () => new ResultText());
    let n = 0;
    for (let units = 0; units < 65_536; units += 6) {
      // A unique token each time, as an agent's stream is.
      for (const r of results) r.append(`w${(n++).toString(36).padStart(4, '0')} `);
    }
    gc();
    const held = process.memoryUsage().heapUsed - before;
    expect(held / (65_536 * 8)).toBeLessThan(3);
    expect(results[0]?.toString()).toMatch(/^w0000 w0008 /);
    expect(results[0]?.dropped).toBe(0);
  });
});
