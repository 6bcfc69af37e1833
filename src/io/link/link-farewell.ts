/**
 * How a client's link ended, in words: one place for the lines a client
 * prints after it restored the terminal, whichever client relayed the link
 * (the node one, link-client.ts, or the native one, native-client.ts), so
 * the two say the same (docs/protocol.md, "The client link").
 */
import type { Farewell } from '../../core/protocol/link-frames.js';

/** The signals that detach a client: the terminal went away (SIGHUP), or the client was told to stop. */
export const DETACH_SIGNALS: readonly NodeJS.Signals[] = ['SIGHUP', 'SIGTERM', 'SIGINT'];

/** A server's farewell frame (x or d) as read from its JSON, with code 1 when it is not one. */
export function farewellOf(value: unknown): Farewell {
  if (typeof value !== 'object' || value === null) return { code: 1, message: 'the cockpit ended the link with no reason' };
  const v = value as Record<string, unknown>;
  return {
    code: typeof v.code === 'number' && Number.isInteger(v.code) ? v.code : 1,
    ...(typeof v.message === 'string' ? { message: v.message } : {}),
    ...(Array.isArray(v.lines) ? { lines: v.lines.map(String) } : {}),
  };
}

/** The client detached itself on a signal: the cockpit goes on (a closed terminal, SIGHUP, has no one to tell). */
export function signalFarewell(name: string, signal: NodeJS.Signals): Farewell {
  return { code: 0, ...(signal === 'SIGHUP' ? {} : { message: `detached from cockpit ${name} (${signal}); tai attach ${name} comes back` }) };
}

/** The link closed without a farewell: the server was killed. */
export function silentFarewell(name: string, logPath: string | undefined): Farewell {
  return { code: 1, message: `cockpit ${name} ended without a word (its server was killed?)${logPath === undefined ? '' : `; its log: ${logPath}`}` };
}

/** The server sent what cannot be read (a frame over the cap). */
export function brokenFarewell(name: string, error: string): Farewell {
  return { code: 1, message: `the link to cockpit ${name} broke: ${error}` };
}

/** Prints a farewell's message and lines; returns its exit code. */
export function sayFarewell(words: Farewell, say: (line: string) => void): number {
  if (words.message !== undefined) say(`tai: ${words.message}`);
  for (const line of words.lines ?? []) say(line);
  return words.code;
}
