import { StringDecoder } from 'node:string_decoder';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { KeysText } from '../../../src/io/link/keys-text.js';

describe('KeysText', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
  });

  it('reads keys as the decoder would, a character split across reads included', () => {
    const reads = [[0x61], [0x0d], [0xc3], [0xa9], [0x62], [0xe4, 0xb8], [0x96, 0x63], [0x1b, 0x5b, 0x41], [0xc3], [0x64], [0xc3, 0xa9], [0x65], []];
    const keys = new KeysText();
    const plain = new StringDecoder('utf8');
    const got = reads.map((r) => keys.text(Buffer.from(r)));
    expect(got).toEqual(reads.map((r) => plain.write(Buffer.from(r))));
    // The one-byte key after a lone lead byte is not taken as it is: the decoder says the lead was cut short.
    expect(got[9]).toBe('\ufffdd');
    expect(got.join('')).toBe('a\ré' + 'b世c\x1b[A\ufffdd' + 'ée');
  });

  it('reads only the first `length` bytes of a reused buffer', () => {
    const keys = new KeysText();
    const buffer = Buffer.from('ab\u00e9zzzz', 'utf8');
    expect([keys.text(buffer, 1), keys.text(buffer.subarray(1), 1), keys.text(buffer.subarray(2), 2), keys.text(buffer, 0)]).toEqual(['a', 'b', '\u00e9', '']);
  });

  it("takes a one-byte key after a plain one without the decoder, reading no internals of Node's (TAI_INTERNALS=0 too)", () => {
    vi.stubEnv('TAI_INTERNALS', '0');
    const write = vi.spyOn(StringDecoder.prototype, 'write');
    const keys = new KeysText();
    expect([0x61, 0x62, 0x0d].map((b) => keys.text(Buffer.from([b])))).toEqual(['a', 'b', '\r']);
    expect(write).not.toHaveBeenCalled();
  });
});
