/** The incremental, bounded JSON-lines decoder (STYLE.md, habit 6). */
import { describe, expect, test } from 'vitest';
import { LARGEST_VALID_REQUEST, LINE_MAX_BYTES, LineDecoder } from '../../../src/core/protocol/line-decoder.js';

const b = (s: string): Buffer => Buffer.from(s, 'utf8');

describe('LineDecoder', () => {
  test('returns complete lines only, across chunks', () => {
    const d = new LineDecoder();
    expect(d.push(b('{"a":1}\n{"b"'))).toEqual([{ ok: true, value: { a: 1 }, text: '{"a":1}' }]);
    expect(d.buffered).toBe(4);
    expect(d.push(b(':2}\n\n{"c":3}\r\n'))).toEqual([
      { ok: true, value: { b: 2 }, text: '{"b":2}' },
      { ok: true, value: { c: 3 }, text: '{"c":3}' },
    ]);
    expect(d.buffered).toBe(0);
  });

  test('a character cut between two chunks is decoded whole', () => {
    const d = new LineDecoder();
    const bytes = b('"✓ done"\n');
    expect(d.push(bytes.subarray(0, 2))).toEqual([]);
    expect(d.push(bytes.subarray(2))).toEqual([{ ok: true, value: '✓ done', text: '"✓ done"' }]);
  });

  test('malformed JSON is an error for that line only', () => {
    const d = new LineDecoder();
    const out = d.push(b('{oops\n[1]\n'));
    expect(out[0]).toMatchObject({ ok: false, tooLong: false });
    expect((out[0] as { error: string }).error).toMatch(/^malformed JSON: /);
    expect(out[1]).toEqual({ ok: true, value: [1], text: '[1]' });
  });

  test('a line over the cap is refused as soon as it crosses the cap, and its rest skipped unbuffered', () => {
    const d = new LineDecoder(10);
    expect(d.push(b('0123456789'))).toEqual([]);
    expect(d.buffered).toBe(10);
    expect(d.push(b('x'))).toEqual([{ ok: false, error: 'request line too long (limit 10 bytes)', tooLong: true }]);
    expect(d.buffered).toBe(0);
    for (let i = 0; i < 1_000; i++) expect(d.push(b('y'.repeat(1_000)))).toEqual([]);
    expect(d.buffered).toBe(0);
    expect(d.push(b('zz\n"ok"\n'))).toEqual([{ ok: true, value: 'ok', text: '"ok"' }]);
  });

  test('a line of exactly the cap passes', () => {
    const d = new LineDecoder(5);
    expect(d.push(b('"abc"\n'))).toEqual([{ ok: true, value: 'abc', text: '"abc"' }]);
  });

  test('end() yields a last line without a newline', () => {
    const d = new LineDecoder();
    d.push(b('{"x":'));
    d.push(b('1}'));
    expect(d.end()).toEqual([{ ok: true, value: { x: 1 }, text: '{"x":1}' }]);
    expect(d.end()).toEqual([]);
  });

  test('the default cap is 8 MiB, above the largest valid request', () => {
    expect(LINE_MAX_BYTES).toBe(8 * 1_048_576);
    expect(LARGEST_VALID_REQUEST).toBeLessThan(LINE_MAX_BYTES);
  });

  test('chunks may be reused by the caller after push', () => {
    const d = new LineDecoder();
    const chunk = b('"abc');
    d.push(chunk);
    chunk.fill(0x20);
    expect(d.push(b('"\n'))).toEqual([{ ok: true, value: 'abc', text: '"abc"' }]);
  });
});
