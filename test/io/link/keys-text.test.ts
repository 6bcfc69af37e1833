import { StringDecoder } from 'node:string_decoder';
import { describe, expect, it } from 'vitest';
import { keysText } from '../../../src/io/link/keys-text.js';

describe('keysText', () => {
  it('reads keys as the decoder would, a character split across reads included', () => {
    const reads = [[0x61], [0x0d], [0xc3], [0xa9], [0x62], [0xe4, 0xb8], [0x96, 0x63], [0x1b, 0x5b, 0x41], [0xc3], [0x64]];
    const fast = new StringDecoder('utf8');
    const plain = new StringDecoder('utf8');
    const got = reads.map((r) => keysText(fast, Buffer.from(r)));
    expect(got).toEqual(reads.map((r) => plain.write(Buffer.from(r))));
    // The one-byte key after a lone lead byte is not taken as it is: the decoder says the lead was cut short.
    expect(got.at(-1)).toBe('\ufffdd');
    expect(got.join('')).toBe('a\ré' + 'b世c\x1b[A\ufffdd');
  });
});
