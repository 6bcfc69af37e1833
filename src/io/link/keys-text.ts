/** A client's keys as text (link-hub.ts), its most common read taken without the decoder. */
import type { StringDecoder } from 'node:string_decoder';
import { decoderEmpty } from '../node-internals.js';

/**
 * Keys read as text. Most reads are one key, one ASCII byte: its character
 * is taken as it is, without the decoder's call, when the decoder holds no
 * part of a character from the read before (node-internals.ts); anything
 * else goes through the decoder.
 */
export function keysText(decoder: StringDecoder, bytes: Uint8Array): string {
  const b = bytes[0];
  if (bytes.length === 1 && b !== undefined && b < 0x80 && decoderEmpty(decoder)) return String.fromCharCode(b);
  return decoder.write(Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes));
}
