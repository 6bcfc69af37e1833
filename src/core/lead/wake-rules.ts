/**
 * When tai may wake an idle lead (docs/lead.md, "Waking an idle lead"): an agent it started ended or asks, no wait
 * pending, the main program and the user quiet; one line at most per WAKE_MIN_GAP_MS, never twice for an event.
 * Pure: a "not now" names when to ask again, so the caller arms one timer for it and none at rest.
 */

import { sanitizeLine } from '../text/sanitize.js';

/** The main program's output must have been quiet this long: the lead sits at its prompt, not mid-answer. */
export const WAKE_QUIET_OUTPUT_MS = 5_000;
/** The user must not have typed for this long: a line never lands in the middle of theirs. */
export const WAKE_QUIET_KEYS_MS = 10_000;
/** The shortest time between two lines. */
export const WAKE_MIN_GAP_MS = 5_000;

/** Something the lead should hear of. */
export interface WakeEvent {
  /** Unique per event (an agent's end, a question): a key told once is never told again. */
  readonly key: string;
  readonly id: number;
  readonly label: string;
  /** done, failed, timeout, cancelled, or asking. */
  readonly state: string;
  /** The result's characters (0 for a question). */
  readonly chars: number;
}

/** The three delays (ms); each defaults to its constant above. */
export interface WakeDelays {
  readonly quietOutputMs: number;
  readonly quietKeysMs: number;
  readonly minGapMs: number;
}

/** The delays of docs/lead.md. */
export const WAKE_DELAYS: WakeDelays = { quietOutputMs: WAKE_QUIET_OUTPUT_MS, quietKeysMs: WAKE_QUIET_KEYS_MS, minGapMs: WAKE_MIN_GAP_MS };

/** What the rules know. */
export interface WakeState {
  readonly now: number;
  readonly lastKeyAt: number;
  readonly lastOutputAt: number;
  readonly lastSentAt: number;
  readonly waitPending: boolean;
  /** When the pending wait stops counting (its last poll grows old); omitted or Infinity: only an answer ends it. */
  readonly waitEndsAt?: number;
  /** Events not told yet, oldest first. */
  readonly pending: readonly WakeEvent[];
  readonly delays?: WakeDelays;
}

/**
 * The line to type now and the events it tells, or why not now and `at`, when that reason ends by itself
 * (absent: only an event ends it, so no timer is needed).
 */
export type WakeDecision =
  | { readonly line: string; readonly told: readonly WakeEvent[] }
  | { readonly line?: undefined; readonly why: string; readonly at?: number };

/** Decides whether to type a line now. */
export function decideWake(s: WakeState): WakeDecision {
  if (s.pending.length === 0) return { why: 'nothing to tell' };
  const d = s.delays ?? WAKE_DELAYS;
  // Each "not now" names when its own reason ends: asked again then, the next reason (if any) is said in its turn.
  const not = (why: string, at: number): WakeDecision => (Number.isFinite(at) ? { why, at } : { why });
  if (s.waitPending) return not('a wait of the lead is pending: it hears of the event itself', s.waitEndsAt ?? Infinity);
  if (s.now - s.lastOutputAt < d.quietOutputMs) return not('the main program is busy', s.lastOutputAt + d.quietOutputMs);
  if (s.now - s.lastSentAt < d.minGapMs) return not('a line was typed a moment ago', s.lastSentAt + d.minGapMs);
  // Last: this reason then says that only the user's typing holds the line back.
  if (s.now - s.lastKeyAt < d.quietKeysMs) return not('the user typed recently', s.lastKeyAt + d.quietKeysMs);
  return { line: wakeLine(s.pending), told: s.pending };
}

/** One line naming the first agent, its state and size, how many more, and the tool to read them. */
export function wakeLine(events: readonly WakeEvent[]): string {
  const [first] = events;
  if (first === undefined) return '';
  const what = first.state === 'asking' ? `agent #${first.id} ${first.label} asks a question` : `agent #${first.id} ${first.label} ${first.state} (${first.chars} characters)`;
  const more = events.length > 1 ? ` and ${events.length - 1} more` : '';
  const tool = first.state === 'asking' ? 'the tai questions tool' : 'the tai wait tool';
  // Typed into the lead as keys: no control of any kind, and bidi or zero-width characters shown, not obeyed.
  return sanitizeLine(`[tai] ${what}${more}: read it with ${tool}`).replace(/[\x00-\x1f\x7f-\x9f]/g, ' ');
}
