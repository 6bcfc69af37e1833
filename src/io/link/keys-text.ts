/** A client's keys as text (link-clients.ts), its most common read taken without the decoder. */
import { StringDecoder } from 'node:string_decoder';

/**
 * One client's keys read as text, as a StringDecoder gives them. Most reads are one ASCII byte, taken as it is whenever
 * the decoder holds no part of a character, true once its last bytes ended in ASCII (a waiting lead byte is U+FFFD).
 */
export class KeysText {
  readonly #decoder = new StringDecoder('utf8');
  #clean = true;

  /** The text of the first `length` bytes (a reused read buffer's), these taken now. */
  text(bytes: Uint8Array, length = bytes.length): string {
    const last = length > 0 ? bytes[length - 1] : undefined;
    if (last === undefined) return '';
    if (length === 1 && last < 0x80 && this.#clean) return String.fromCharCode(last);
    this.#clean = last < 0x80;
    const read = length === bytes.length ? bytes : bytes.subarray(0, length);
    return this.#decoder.write(Buffer.isBuffer(read) ? read : Buffer.from(read));
  }
}
