/** The control socket's lines as JSON values. */
import { describe, expect, test } from 'vitest';
import { LineDecoder } from '../../../src/core/decoders/lines.js';
import { jsonLines, LARGEST_VALID_REQUEST, REQUEST_LINE_MAX } from '../../../src/core/protocol/request-lines.js';

const b = (s: string): Buffer => Buffer.from(s, 'utf8');

describe('jsonLines', () => {
  test('parses each complete line and skips blank ones', () => {
    const d = new LineDecoder(REQUEST_LINE_MAX);
    expect(jsonLines(d.push(b('{"a":1}\n  \n{"b"')))).toEqual([{ ok: true, value: { a: 1 }, text: '{"a":1}' }]);
    expect(jsonLines(d.push(b(':2}\r\n')))).toEqual([{ ok: true, value: { b: 2 }, text: '{"b":2}' }]);
  });

  test('malformed JSON is an error for that line only', () => {
    const out = jsonLines(new LineDecoder(REQUEST_LINE_MAX).push(b('{oops\n[1]\n')));
    expect(out[0]).toMatchObject({ ok: false, tooLong: false });
    expect((out[0] as { error: string }).error).toMatch(/^malformed JSON: /);
    expect(out[1]).toEqual({ ok: true, value: [1], text: '[1]' });
  });

  test('a line over the cap is refused with the cap in bytes', () => {
    const d = new LineDecoder(10);
    expect(jsonLines(d.push(b('0123456789x')))).toEqual([{ ok: false, error: 'request line too long (limit 10 bytes)', tooLong: true }]);
  });

  test('a last line without a newline still counts', () => {
    const d = new LineDecoder(REQUEST_LINE_MAX);
    d.push(b('{"x":'));
    d.push(b('1}'));
    expect(jsonLines(d.end())).toEqual([{ ok: true, value: { x: 1 }, text: '{"x":1}' }]);
  });

  test('the request cap is 8 MiB, above the largest valid request', () => {
    expect(REQUEST_LINE_MAX).toBe(8 * 1_048_576);
    expect(LARGEST_VALID_REQUEST).toBeLessThan(REQUEST_LINE_MAX);
  });
});
