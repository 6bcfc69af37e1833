/** A read-only client's one key: prefix + d, also split over two chunks. */
import { describe, expect, it } from 'vitest';
import { DetachKeyWatch } from '../../../src/core/input/detach-key.js';

describe('the detach key of a read-only client', () => {
  it('hears the prefix then d, in one chunk or two, and nothing else', () => {
    expect(new DetachKeyWatch('\x1d').push('ls -la\r')).toBe(false);
    expect(new DetachKeyWatch('\x1d').push('\x1dd')).toBe(true);
    const split = new DetachKeyWatch('\x1d');
    expect(split.push('x\x1d')).toBe(false);
    expect(split.push('d')).toBe(true);
    const lapsed = new DetachKeyWatch('\x1d');
    expect(lapsed.push('\x1dx')).toBe(false);
    expect(lapsed.push('d')).toBe(false);
    expect(new DetachKeyWatch('\x1d').push('d')).toBe(false);
  });
});
