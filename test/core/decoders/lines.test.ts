import { describe, expect, it } from 'vitest';
import { LineDecoder } from '../../../src/core/decoders/lines.js';

const b = (s: string): Buffer => Buffer.from(s, 'utf8');
const line = (text: string) => ({ ok: true, text });

describe('the line decoder', () => {
  it('returns complete lines only, across chunks, blank ones included', () => {
    const d = new LineDecoder(100);
    expect(d.push(b('{"a":1}\n{"b"'))).toEqual([line('{"a":1}')]);
    expect(d.buffered).toBe(4);
    expect(d.push(b(':2}\n\n{"c":3}\r\n'))).toEqual([line('{"b":2}'), line(''), line('{"c":3}')]);
    expect(d.buffered).toBe(0);
  });

  it('joins lines split across chunks, strips CR and keeps split UTF-8 characters whole', () => {
    const d = new LineDecoder(100);
    const bytes = b('a€b\r\nsecond');
    expect(d.push(bytes.subarray(0, 2))).toEqual([]);
    expect(d.push(bytes.subarray(2, 8))).toEqual([line('a€b')]);
    expect(d.push(bytes.subarray(8))).toEqual([]);
    expect(d.end()).toEqual([line('second')]);
    expect(d.end()).toEqual([]);
  });

  it('takes strings as their UTF-8 bytes', () => {
    const d = new LineDecoder(4);
    expect(d.push('€\n€€\n')).toEqual([line('€'), { ok: false, max: 4 }]);
  });

  it('refuses a line over the cap as soon as it crosses the cap, and skips its rest unbuffered', () => {
    const d = new LineDecoder(10);
    expect(d.push(b('0123456789'))).toEqual([]);
    expect(d.buffered).toBe(10);
    expect(d.push(b('x'))).toEqual([{ ok: false, max: 10 }]);
    expect(d.buffered).toBe(0);
    for (let i = 0; i < 1_000; i++) expect(d.push(b('y'.repeat(1_000)))).toEqual([]);
    expect(d.buffered).toBe(0);
    expect(d.push(b('zz\nok\n'))).toEqual([line('ok')]);
  });

  it('refuses a line over the cap once, in its place among the lines of the same chunk', () => {
    const d = new LineDecoder(3);
    expect(d.push(b('one\nfour\ntwo\n'))).toEqual([line('one'), { ok: false, max: 3 }, line('two')]);
  });

  it('passes a line of exactly the cap', () => {
    expect(new LineDecoder(5).push(b('"abc"\n'))).toEqual([line('"abc"')]);
  });

  it('drops the unfinished rest of an over-long line at the end', () => {
    const d = new LineDecoder(2);
    expect(d.push(b('abc'))).toEqual([{ ok: false, max: 2 }]);
    expect(d.end()).toEqual([]);
  });

  it('lets the caller reuse a chunk after push', () => {
    const d = new LineDecoder(100);
    const chunk = b('"abc');
    d.push(chunk);
    chunk.fill(0x20);
    expect(d.push(b('"\n'))).toEqual([line('"abc"')]);
  });
});
