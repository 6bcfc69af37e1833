/**
 * The two uses tai has for node:crypto (a record id's random part, a lane
 * lock's name), with the module loaded on first use: loaded at start it
 * would sit in the resting server's memory, where neither is needed
 * (docs/perf-log.md, "Memory: the server's Node flags and the idle collection").
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

let crypto: typeof import('node:crypto') | undefined;

function load(): typeof import('node:crypto') {
  crypto ??= require('node:crypto') as typeof import('node:crypto');
  return crypto;
}

/** `bytes` random bytes as lowercase hex. */
export function randomHex(bytes: number): string {
  return load().randomBytes(bytes).toString('hex');
}

/** The SHA-256 of `text` as lowercase hex. */
export function sha256Hex(text: string): string {
  return load().createHash('sha256').update(text).digest('hex');
}
