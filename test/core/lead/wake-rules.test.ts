/**
 * The wake-up's rules (src/core/lead/wake-rules.ts): each "not now" names
 * when its own reason ends, so the caller arms one timer for it; a wait in
 * flight and nothing to tell name no time at all.
 */
import { describe, expect, test } from 'vitest';
import { decideWake, WAKE_DELAYS, wakeLine, type WakeState } from '../../../src/core/lead/wake-rules.js';
import { eventText } from '../../../src/core/lead/lead-view.js';

const EVENT = { key: '3:done:', id: 3, label: 'w3', state: 'done', chars: 12 };
const QUIET: WakeState = { now: 100_000, lastKeyAt: 0, lastOutputAt: 0, lastSentAt: -Infinity, waitPending: false, pending: [EVENT] };

describe('when the wake-up asks its rules again', () => {
  test('nothing to tell names no time; quiet on every count types the line', () => {
    expect(decideWake({ ...QUIET, pending: [] })).toEqual({ why: 'nothing to tell' });
    expect(decideWake(QUIET)).toEqual({ line: '[tai] agent #3 w3 done (12 characters): read it with the tai wait tool', told: [EVENT] });
  });

  test('each reason names the time it ends, in the order the log says them', () => {
    const now = QUIET.now;
    expect(decideWake({ ...QUIET, lastOutputAt: now - 1_000, lastKeyAt: now - 1_000 })).toEqual({ why: 'the main program is busy', at: now - 1_000 + WAKE_DELAYS.quietOutputMs });
    expect(decideWake({ ...QUIET, lastSentAt: now - 2_000 })).toEqual({ why: 'a line was typed a moment ago', at: now - 2_000 + WAKE_DELAYS.minGapMs });
    expect(decideWake({ ...QUIET, lastKeyAt: now - 3_000 })).toEqual({ why: 'the user typed recently', at: now - 3_000 + WAKE_DELAYS.quietKeysMs });
  });

  test('a pending wait names when its last poll grows old, and no time while a poll is in flight', () => {
    const why = 'a wait of the lead is pending: it hears of the event itself';
    expect(decideWake({ ...QUIET, waitPending: true, waitEndsAt: QUIET.now + 2_500 })).toEqual({ why, at: QUIET.now + 2_500 });
    expect(decideWake({ ...QUIET, waitPending: true, waitEndsAt: Infinity })).toEqual({ why });
    expect(decideWake({ ...QUIET, waitPending: true })).toEqual({ why });
  });
});

describe('what the lead is told of an agent, sanitized', () => {
  test('the wake line typed into the lead shows bidi and zero-width characters and carries no control (a C1 CSI is dropped with its sequence)', () => {
    const line = wakeLine([{ ...EVENT, label: 'w\u202Eevil\u200b\x9b31m' }]);
    expect(line).toBe('[tai] agent #3 w<U+202E>evil<U+200B> done (12 characters): read it with the tai wait tool');
  });

  test("an event's label, reason and result text end an open escape string at its line and show bidi characters", () => {
    const text = eventText({ kind: 'finished', id: 4, label: 'w\u202Eevil', state: 'done', reason: 'exit 0', chars: 30, text: 'visible\n\x1bPq\nIMPORTANT \u2066x' });
    expect(text).toBe('agent #4 w<U+202E>evil done (exit 0): 30 characters, no record (short enough to keep whole)\n--- head ---\nvisible\n\nIMPORTANT <U+2066>x');
    const asking = eventText({ kind: 'asking', id: 5, label: 'q', qid: 'q1', tool: 'rm\u202E -rf', options: [{ id: 'y', name: 'allow\u200b' }] });
    expect(asking).toContain('asks: rm<U+202E> -rf');
    expect(asking).toContain('y (allow<U+200B>)');
  });
});
