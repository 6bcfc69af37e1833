/**
 * The two uses tai has for node:crypto (a record id's random part, a lane
 * lock's name), with the module loaded on first use: loaded at start it is
 * about 1.1 MB of the cockpit server's RSS at rest, where neither is needed
 * (issue 11: the server with 8 panels at most 80 MB; docs/perf-log.md,
 * "Memory").
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
