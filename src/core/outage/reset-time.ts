/**
 * When a rate limit resets, read from what the service or the agent said, in the shapes docs/outages.md, "The
 * model", lists (headers, and Claude's, Codex's and Gemini's words). Pure: a relative time ("retry-after: 30")
 * counts from the `now` passed in, and is unknown without it.
 */

/** Reads one header by its lower-case name. */
export type HeaderReader = (name: string) => string | undefined;

/** Reset headers of Anthropic, OpenAI and GitHub; when several are given, the latest wins. */
export const RESET_HEADERS: readonly string[] = [
  'anthropic-ratelimit-unified-reset', 'anthropic-ratelimit-requests-reset', 'anthropic-ratelimit-tokens-reset',
  'anthropic-ratelimit-input-tokens-reset', 'anthropic-ratelimit-output-tokens-reset',
  'x-ratelimit-reset-requests', 'x-ratelimit-reset-tokens', 'x-ratelimit-reset',
];

/** A day, for clock times that have already passed today. */
const DAY_MS = 86_400_000;

/** `resetAt` from headers: `retry-after-ms`, `retry-after` (seconds or a date), else the latest reset header. */
export function resetFromHeaders(header: HeaderReader, now: number | undefined): number | undefined {
  const afterMs = numeric(header('retry-after-ms'));
  if (afterMs !== undefined && now !== undefined) return now + afterMs;
  const after = header('retry-after');
  if (after !== undefined) {
    const seconds = numeric(after);
    if (seconds !== undefined) return now === undefined ? undefined : now + seconds * 1000;
    const date = Date.parse(after);
    if (!Number.isNaN(date)) return date;
  }
  const resets = RESET_HEADERS.map((name) => header(name))
    .map((value) => (value === undefined ? undefined : resetFromValue(value, now)))
    .filter((value): value is number => value !== undefined);
  return resets.length === 0 ? undefined : Math.max(...resets);
}

/** A reset value: an epoch (seconds or ms), a date, or a duration such as "6m0s" (relative to now). */
export function resetFromValue(value: string, now: number | undefined): number | undefined {
  const number = numeric(value);
  if (number !== undefined && number >= 1e9) return epochFrom(number);
  if (number !== undefined) return now === undefined ? undefined : now + number * 1000;
  const duration = durationMs(value);
  if (duration !== undefined) return now === undefined ? undefined : now + duration;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : date;
}

/**
 * `resetAt` from a message (the shapes above); `timeZone` places a clock time the message does not, the
 * machine's by default.
 */
export function resetFromText(text: string, now: number | undefined, timeZone?: string): number | undefined {
  const epoch = /\|(\d{10,13})\b/.exec(text);
  if (epoch?.[1] !== undefined) return epochFrom(Number(epoch[1]));
  const dated = /try again at ([A-Z][a-z]{2,8} \d{1,2}(?:st|nd|rd|th)?, \d{4},? \d{1,2}:\d{2}\s*[AP]M)/i.exec(text);
  if (dated?.[1] !== undefined) {
    const date = localDate(dated[1].replace(/(\d)(?:st|nd|rd|th),/, '$1,').replace(/, (\d{4}),? /, ', $1 '), timeZone);
    if (date !== undefined) return date;
  }
  if (now === undefined) return undefined;
  const delay = /"retryDelay"\s*:\s*"(\d+(?:\.\d+)?)s"/.exec(text);
  if (delay?.[1] !== undefined) return now + Number(delay[1]) * 1000;
  const phrase = /(?:try again|retry) in ((?:\d+(?:\.\d+)?\s*[a-z]+[\s,]*(?:and\s+)?)+)/i.exec(text);
  const duration = phrase?.[1] === undefined ? undefined : durationMs(phrase[1].replace(/[\s,.]+$/, ''));
  if (duration !== undefined) return now + duration;
  const clock = /(?:try again at|resets(?: at)?) (\d{1,2})(?::(\d{2}))?\s*([ap]\.?m\.?)?(?:\s*\(([A-Za-z_]+(?:\/[A-Za-z_+-]+)*)\))?/i.exec(text);
  if (clock?.[1] === undefined || (clock[2] === undefined && clock[3] === undefined)) return undefined;
  let hour = Number(clock[1]);
  const minute = Number(clock[2] ?? '0');
  const meridiem = clock[3]?.[0]?.toLowerCase();
  if (meridiem !== undefined && (hour < 1 || hour > 12)) return undefined;
  if (meridiem === 'p' && hour !== 12) hour += 12;
  if (meridiem === 'a' && hour === 12) hour = 0;
  if (hour > 23 || minute > 59) return undefined;
  return nextClockTime(hour, minute, clock[4] ?? timeZone, now);
}

/** Milliseconds per unit of a written duration. */
const UNIT_MS: Readonly<Record<string, number>> = {
  ms: 1, s: 1000, sec: 1000, secs: 1000, second: 1000, seconds: 1000,
  m: 60_000, min: 60_000, mins: 60_000, minute: 60_000, minutes: 60_000,
  h: 3_600_000, hr: 3_600_000, hrs: 3_600_000, hour: 3_600_000, hours: 3_600_000,
  d: DAY_MS, day: DAY_MS, days: DAY_MS,
};

/** A duration such as "6m0s", "20ms", "2 hours 5 minutes", or undefined if it is not one. */
export function durationMs(text: string): number | undefined {
  const parts = [...text.trim().matchAll(/(\d+(?:\.\d+)?)\s*([a-z]+)/gi)];
  if (parts.length === 0) return undefined;
  let total = 0;
  for (const [, amount, unit] of parts) {
    const ms = UNIT_MS[(unit ?? '').toLowerCase()];
    if (ms === undefined) return undefined;
    total += Number(amount) * ms;
  }
  return total;
}

/** An epoch in seconds or milliseconds, as milliseconds. */
export function epochFrom(value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  return value < 1e12 ? value * 1000 : value;
}

/** The first moment after `now` when the clock in `timeZone` (default: the machine's) reads hour:minute. */
export function nextClockTime(hour: number, minute: number, timeZone: string | undefined, now: number): number | undefined {
  const offset = zoneOffset(timeZone);
  if (offset === undefined) return undefined;
  const local = new Date(now + offset(now));
  const wall = Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate(), hour, minute);
  // The zone's offset at the wall time itself, so a clock time past a DST change lands right.
  let at = wall - offset(wall - offset(now));
  if (at <= now) at = wall + DAY_MS - offset(wall + DAY_MS - offset(now));
  return at;
}

/** "Oct 12, 2025 2:30 PM" in `timeZone` (default: the machine's), as epoch ms. */
function localDate(text: string, timeZone: string | undefined): number | undefined {
  // Date.parse reads a date without a zone as the machine's local time; take it as UTC and shift it.
  const asUtc = Date.parse(`${text} UTC`);
  const offset = zoneOffset(timeZone);
  if (Number.isNaN(asUtc) || offset === undefined) return undefined;
  return asUtc - offset(asUtc - offset(asUtc));
}

/** The offset (ms, local minus UTC) of `timeZone` at a moment, or undefined for a zone Intl does not know. */
function zoneOffset(timeZone: string | undefined): ((at: number) => number) | undefined {
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat('en-US', {
      ...(timeZone === undefined ? {} : { timeZone }),
      hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
    });
  } catch {
    return undefined;
  }
  return (at) => {
    const part = (type: Intl.DateTimeFormatPartTypes): number => Number(format.formatToParts(at).find((p) => p.type === type)?.value ?? 0);
    const wall = Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'));
    return wall - Math.floor(at / 1000) * 1000;
  };
}

/** A finite number given as a number or a string of digits. */
export function numeric(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && /^\s*\d+(?:\.\d+)?\s*$/.test(value)) return Number(value);
  return undefined;
}
