/**
 * One agent's transcript waiting to be written: its text, when a write is due, and which stretches are the agent's
 * text as sent (so parts repeating a stored result can read the record). Writes come in few, full parts (at most
 * one per TRANSCRIPT_WRITE_MS while streaming, else at a part's worth or a turn's end): each part is a row.
 */
import { emptyCap, TRANSCRIPT_MAX_BYTES, TRANSCRIPT_TAIL_BYTES, utf8Bytes, utf8Suffix, type CapState } from '../../core/agents/transcript-cap.js';
import { codePoints } from '../../core/agents/claim-check.js';
import { TranscriptFormatter } from '../../core/agents/transcript.js';
import type { AgentEvent } from '../../core/events.js';
import type { FinalState } from '../../core/panel/panel-state.js';
import type { PartReference } from '../storage/transcripts.js';

/** The shortest time between two writes of one streaming agent's transcript (unless a part's worth waits). */
export const TRANSCRIPT_WRITE_MS = 1_000;

/** Units of buffered text written at once, without waiting for TRANSCRIPT_WRITE_MS. */
export const TRANSCRIPT_PART_UNITS = 65_536;

/** A stretch of the buffer that is exactly the agent's text from `rawFrom` (UTF-16 units into its text events). */
interface Span {
  readonly bufStart: number;
  bufEnd: number;
  readonly rawFrom: number;
}

/** How an agent ended: its footer's fields and, when its result went to a record, that record. */
export interface Ending {
  readonly state: FinalState;
  readonly elapsedMs: number;
  readonly summary: string;
  readonly result: { readonly recordId: string; readonly raw: string } | undefined;
}

/** A written part's longest verbatim stretch: code points into the part (`at`, `len`), UTF-16 units into the result (`from`, `units`). */
interface WholePart {
  readonly seq: number;
  readonly at: number;
  readonly len: number;
  readonly from: number;
  readonly units: number;
}

/** One agent's transcript being written. */
export interface Writing {
  readonly formatter: TranscriptFormatter;
  readonly cap: CapState;
  buffer: string;
  writtenAt: number;
  /** The database refused the last write: the next waits for the time, whatever is buffered. */
  refused: boolean;
  /** Events not yet through the formatter, oldest first; the first may be part-way (`taken` units of its text). */
  readonly queue: AgentEvent[];
  taken: number;
  /** Units of text in the queue not yet taken. */
  queued: number;
  /** The agent ended: its footer goes after the queue. */
  ending: Ending | undefined;
  /** The footer is in the buffer. */
  ended: boolean;
  /** A write is due (its time came, its turn or its life ended). */
  due: boolean;
  /** UTF-16 units of the agent's text events so far: where its next text stands in its result. */
  rawUnits: number;
  /** The buffer's verbatim stretches. */
  spans: Span[];
  /** Written parts' longest verbatim stretches; made references when the result is a record. */
  parts: WholePart[];
  /** References left to make, after the last write. */
  refs: PartReference[] | undefined;
  /** Some text was cut: no part is made a reference. */
  cut: boolean;
}

/** A new agent's transcript starting with `buffer`, due at once. */
export function newWriting(formatter: TranscriptFormatter, buffer: string): Writing {
  return { formatter, cap: emptyCap(), buffer, writtenAt: -Infinity, refused: false, queue: [], taken: 0, queued: 0, ending: undefined, ended: false, due: true, rawUnits: 0, spans: [], parts: [], refs: undefined, cut: false };
}

/** A part's worth is buffered and the database took the last write: it goes now. */
export function partFull(w: Writing): boolean {
  return !w.refused && w.buffer.length >= TRANSCRIPT_PART_UNITS;
}

/** True when the running agent's buffer should be written now: its time came, a part's worth waits, or its turn ended. */
export function writeDue(w: Writing, now: number, resting: boolean): boolean {
  if (w.buffer === '' || w.due) return false;
  return now - w.writtenAt >= TRANSCRIPT_WRITE_MS || partFull(w) || (resting && !w.refused);
}

/** One event through the agent's formatter into its buffer. */
export function format(w: Writing, event: AgentEvent): void {
  const out = w.formatter.event(event);
  if (event.type === 'text') {
    if (out === event.text && out !== '') verbatim(w, out.length);
    w.rawUnits += event.text.length;
  }
  w.buffer += out;
  // A database that refuses every write must not let the buffer grow without end: its newest part is kept, the rest counted as cut.
  if (w.buffer.length > TRANSCRIPT_MAX_BYTES) {
    const kept = utf8Suffix(w.buffer, TRANSCRIPT_TAIL_BYTES);
    w.cap.cut += utf8Bytes(w.buffer) - utf8Bytes(kept);
    w.buffer = kept;
    w.cut = true;
  }
}

export function isHigh(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

/** The buffer's first `n` units were written as `parts`: note their verbatim stretches and drop them from the buffer. */
export function written(w: Writing, parts: readonly { readonly seq: number; readonly text: string }[], n: number): void {
  if (!w.cut) wholeParts(w, parts, n);
  w.spans = w.spans.filter((s) => s.bufEnd > n).map((s) => ({ bufStart: Math.max(s.bufStart, n) - n, bufEnd: s.bufEnd - n, rawFrom: s.rawFrom + Math.max(0, n - s.bufStart) }));
  w.buffer = w.buffer.slice(n);
}

/** The buffer's next `len` units are the agent's text as it sent it: a verbatim stretch (joined to the last when they touch). */
function verbatim(w: Writing, len: number): void {
  const last = w.spans.at(-1);
  if (last && last.bufEnd === w.buffer.length && last.rawFrom + (last.bufEnd - last.bufStart) === w.rawUnits) last.bufEnd += len;
  else w.spans.push({ bufStart: w.buffer.length, bufEnd: w.buffer.length + len, rawFrom: w.rawUnits });
}

/** Smaller verbatim stretches are not worth a reference. */
const REFERENCE_MIN = 256;

/** Notes each written part's longest verbatim stretch (the parts are the buffer's first `written` units in order, unless some was cut). */
function wholeParts(w: Writing, parts: readonly { readonly seq: number; readonly text: string }[], written: number): void {
  let at = 0;
  for (const part of parts) {
    const end = at + part.text.length;
    let best: { start: number; stop: number; from: number } | undefined;
    for (const s of w.spans) {
      const start = Math.max(at, s.bufStart);
      const stop = Math.min(end, s.bufEnd);
      if (stop - start >= REFERENCE_MIN && (!best || stop - start > best.stop - best.start)) best = { start, stop, from: s.rawFrom + (start - s.bufStart) };
    }
    if (best) {
      const inPart = best.start - at;
      const units = best.stop - best.start;
      w.parts.push({ seq: part.seq, at: codePoints(part.text.slice(0, inPart)), len: codePoints(part.text.slice(inPart, inPart + units)), from: best.from, units });
    }
    at = end;
  }
  if (at !== written) {
    w.cut = true;
    w.parts = [];
  }
}

/** The parts' places in `raw` as SQLite counts them (code points); those past its end are left out. */
export function inCodePoints(parts: readonly WholePart[], raw: string): PartReference[] {
  const out: PartReference[] = [];
  let unit = 0;
  let cp = 0;
  for (const p of parts) {
    if (p.from < unit || p.from + p.units > raw.length) continue;
    cp += codePoints(raw.slice(unit, p.from));
    unit = p.from;
    out.push({ seq: p.seq, at: p.at, from: cp, len: p.len });
  }
  return out;
}
