import { describe, expect, it } from 'vitest';
import { PendingOutput, SKIPPED_LINE, prefixIndex, utf8Length } from '../../../src/core/panel/pending.js';

describe('pending output', () => {
  it('counts UTF-8 bytes of ASCII, accents, CJK and emoji', () => {
    expect(utf8Length('a')).toBe(1);
    expect(utf8Length('é')).toBe(2);
    expect(utf8Length('漢')).toBe(3);
    expect(utf8Length('🙂')).toBe(4);
    expect(utf8Length('a漢🙂')).toBe(Buffer.byteLength('a漢🙂'));
  });

  it('never splits a character when it takes a chunk', () => {
    const p = new PendingOutput(1000, 5);
    p.append('ab🙂cd');
    expect(p.take()).toBe('ab');
    expect(p.take()).toBe('🙂c');
    expect(p.take()).toBe('d');
    expect(p.take()).toBe('');
  });

  it('finds the prefix of at most N bytes that ends on a character boundary', () => {
    expect(prefixIndex('漢字', 4)).toBe(1);
    expect(prefixIndex('🙂x', 3)).toBe(0);
    expect(prefixIndex('🙂x', 4)).toBe(2);
  });

  it('keeps every byte while under the cap', () => {
    const p = new PendingOutput(100, 1000);
    p.append('one\r\n');
    p.append('two\r\n');
    expect(p.size).toBe(10);
    expect(p.take()).toBe('one\r\ntwo\r\n');
    expect(p.dropped).toBe(0);
  });

  it('drops the oldest whole lines over the cap and puts one marker line in front', () => {
    const cap = 400;
    const p = new PendingOutput(cap, 10_000);
    for (let i = 0; i < 100; i++) p.append(`line ${String(i).padStart(3, '0')}\r\n`);
    expect(p.size).toBeLessThanOrEqual(cap);
    const text = p.take();
    expect(text.startsWith(SKIPPED_LINE)).toBe(true);
    const body = text.slice(SKIPPED_LINE.length);
    expect(body.endsWith('line 099\r\n')).toBe(true);
    expect(body.startsWith('line ')).toBe(true);
    expect(text.split(SKIPPED_LINE)).toHaveLength(2);
    expect(p.dropped + utf8Length(body)).toBe(100 * 10);
  });
});
