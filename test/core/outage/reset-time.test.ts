import { describe, expect, it } from 'vitest';
import { durationMs, epochFrom, nextClockTime, resetFromHeaders, resetFromText, resetFromValue } from '../../../src/core/outage/reset-time.js';

const NOW = Date.UTC(2026, 9, 9, 23, 0, 0);

/** A header reader over a plain record with lower-case names. */
const headers = (record: Record<string, string>) => (name: string): string | undefined => record[name];

describe('reset times from headers', () => {
  const table: readonly [string, Record<string, string>, number | undefined][] = [
    ['retry-after in seconds', { 'retry-after': '17' }, NOW + 17_000],
    ['retry-after as an HTTP date', { 'retry-after': 'Sat, 10 Oct 2026 01:00:00 GMT' }, Date.UTC(2026, 9, 10, 1, 0, 0)],
    ['retry-after-ms before retry-after', { 'retry-after-ms': '1500', 'retry-after': '17' }, NOW + 1_500],
    ['Anthropic\'s unified reset in epoch seconds', { 'anthropic-ratelimit-unified-reset': '1791601200' }, 1_791_601_200_000],
    ['Anthropic\'s token reset as an RFC 3339 date', { 'anthropic-ratelimit-tokens-reset': '2026-10-09T23:01:30Z' }, NOW + 90_000],
    ['OpenAI\'s reset durations, the later one kept', { 'x-ratelimit-reset-requests': '1s', 'x-ratelimit-reset-tokens': '6m0s' }, NOW + 360_000],
    ['GitHub\'s x-ratelimit-reset in epoch seconds', { 'x-ratelimit-reset': '1791601200' }, 1_791_601_200_000],
    ['no reset header at all', { 'content-type': 'application/json' }, undefined],
  ];

  it.each(table)('reads %s', (_name, given, expected) => {
    expect(resetFromHeaders(headers(given), NOW)).toBe(expected);
  });

  it('leaves a relative time unknown without a clock reading, but keeps an absolute one', () => {
    expect(resetFromHeaders(headers({ 'retry-after': '30' }), undefined)).toBeUndefined();
    expect(resetFromHeaders(headers({ 'x-ratelimit-reset': '1791601200' }), undefined)).toBe(1_791_601_200_000);
  });
});

describe('reset times from a message', () => {
  const table: readonly [string, string, number | undefined][] = [
    ['Claude\'s older limit text with its epoch', 'Claude AI usage limit reached|1791601200', 1_791_601_200_000],
    ['Codex\'s "try again in" a duration', "You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) or try again in 2 hours 5 minutes.", NOW + 125 * 60_000],
    ['Codex\'s "try again in" days', 'You\'ve hit your usage limit. Try again in 4 days 20 hours 9 minutes.', NOW + ((4 * 24 + 20) * 60 + 9) * 60_000],
    ['Gemini\'s RetryInfo retryDelay', 'RESOURCE_EXHAUSTED {"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"17s"}', NOW + 17_000],
    ['Gemini\'s "Please retry in"', 'You exceeded your current quota. Please retry in 17.5s.', NOW + 17_500],
    ['Codex\'s "try again at" a clock time later today', "You've hit your usage limit. To get more access now, send a request to your admin or try again at 11:16 PM.", Date.UTC(2026, 9, 9, 23, 16)],
    ['Codex\'s "try again at" a clock time already past, so tomorrow', 'You\'ve hit your usage limit. Try again at 9:05 AM.', Date.UTC(2026, 9, 10, 9, 5)],
    ['Codex\'s "try again at" a date', 'You\'ve hit your usage limit. Upgrade to Plus to continue using Codex, or try again at Oct 12th, 2026 2:30 PM.', Date.UTC(2026, 9, 12, 14, 30)],
    ['Claude\'s "resets 2pm" in the zone it names', 'You\'ve hit your limit · resets 2pm (Asia/Shanghai)', Date.UTC(2026, 9, 10, 6, 0)],
    ['Claude\'s "resets 5:30am" in the local zone', 'You\'ve hit your limit · resets 5:30am', Date.UTC(2026, 9, 10, 5, 30)],
    ['a limit that does not say when', 'usage limit reached', undefined],
    ['a bare hour that could be anything', 'the limit resets at 5', undefined],
    ['a zone Intl does not know', 'You\'ve hit your limit · resets 2pm (Nowhere/Atlantis)', undefined],
  ];

  it.each(table)('reads %s', (_name, text, expected) => {
    expect(resetFromText(text, NOW, 'UTC')).toBe(expected);
  });

  it('keeps an absolute reset time without a clock reading', () => {
    expect(resetFromText('Claude AI usage limit reached|1791601200', undefined)).toBe(1_791_601_200_000);
    expect(resetFromText('try again in 2 hours', undefined)).toBeUndefined();
  });
});

describe('the pieces', () => {
  it('reads durations in the services\' spellings', () => {
    expect(durationMs('6m0s')).toBe(360_000);
    expect(durationMs('20ms')).toBe(20);
    expect(durationMs('2 hours 5 minutes')).toBe(7_500_000);
    expect(durationMs('1 fortnight')).toBeUndefined();
    expect(durationMs('soon')).toBeUndefined();
  });

  it('reads an epoch in seconds or milliseconds', () => {
    expect(epochFrom(1_791_601_200)).toBe(1_791_601_200_000);
    expect(epochFrom(1_791_601_200_000)).toBe(1_791_601_200_000);
    expect(resetFromValue('30', NOW)).toBe(NOW + 30_000);
  });

  it('finds the next clock time across a daylight-saving change', () => {
    // Berlin leaves summer time at 01:00 UTC on 25 Oct 2026: 09:00 that morning is 08:00 UTC.
    const before = Date.UTC(2026, 9, 24, 12, 0);
    expect(nextClockTime(9, 0, 'Europe/Berlin', before)).toBe(Date.UTC(2026, 9, 25, 8, 0));
    // 14:00 that Saturday is now itself, so the next one is Sunday's, in winter time.
    expect(nextClockTime(14, 0, 'Europe/Berlin', before)).toBe(Date.UTC(2026, 9, 25, 13, 0));
  });
});
