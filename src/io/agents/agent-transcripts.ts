/**
 * The agent service's transcripts (issue 13, `tai logs`): every event the
 * board is told (board.listen) is turned into plain text by the agent's
 * TranscriptFormatter and buffered per agent; the buffer is written to the
 * state database (src/io/storage/transcripts.ts) when the board publishes,
 * at most every TRANSCRIPT_WRITE_MS per agent, and with the footer when the
 * agent ends. A write the database refuses stays buffered for the next one;
 * supervision never waits on it. When the agent's result went to a record,
 * the parts that repeat it read it from there (transcripts.ts), so a long
 * result is stored once.
 *
 * Nothing an agent prints holds the loop for long: a long text is sanitized,
 * written and made references TRANSCRIPT_SLICE units at a time, one slice a
 * turn of the loop (in order, the footer last); a short end is written at once.
 */
import { emptyCap, TRANSCRIPT_MAX_BYTES, TRANSCRIPT_TAIL_BYTES, utf8Bytes, utf8Suffix, type CapState } from '../../core/agents/transcript-cap.js';
import { TranscriptFormatter } from '../../core/agents/transcript.js';
import type { AgentEvent } from '../../core/events.js';
import type { FinalState } from '../../core/panel/panel-state.js';
import type { Board } from '../../../store/board.js';
import type { PartReference, TranscriptStore } from '../storage/transcripts.js';
import { codePoints } from '../../core/agents/claim-check.js';

/** The shortest time between two writes of one agent's transcript while it runs. */
export const TRANSCRIPT_WRITE_MS = 250;

/** Units of agents' text sanitized, or of a transcript written, in one turn of the loop. */
export const TRANSCRIPT_SLICE = 65_536;

/** Units of text waiting for the formatter, per agent, past which it is formatted at once. */
export const TRANSCRIPT_QUEUE_MAX = 4 * 1_048_576;

/** A stretch of the buffer that is exactly the agent's text from `rawFrom` (UTF-16 units into its text events). */
interface Span {
  readonly bufStart: number;
  bufEnd: number;
  readonly rawFrom: number;
}

/** How an agent ended: its footer's fields and, when its result went to a record, that record. */
interface Ending {
  readonly state: FinalState;
  readonly elapsedMs: number;
  readonly summary: string;
  readonly result: { readonly recordId: string; readonly raw: string } | undefined;
}

/** One agent's transcript being written. */
interface Writing {
  readonly formatter: TranscriptFormatter;
  readonly cap: CapState;
  buffer: string;
  writtenAt: number;
  /** Events not yet through the formatter, oldest first; the first may be part-way (`taken` units of its text). */
  readonly queue: AgentEvent[];
  taken: number;
  /** Units of text in the queue not yet taken. */
  queued: number;
  /** The agent ended: its footer goes after the queue. */
  ending: Ending | undefined;
  /** The footer is in the buffer. */
  ended: boolean;
  /** A write is due (its time came, or the agent ended). */
  due: boolean;
  /** UTF-16 units of the agent's text events so far: where its next text stands in its result. */
  rawUnits: number;
  /** The buffer's verbatim stretches. */
  spans: Span[];
  /** Written parts' longest verbatim stretch: code points into the part (`at`, `len`), UTF-16 units into the result (`from`); made references when the result is a record. */
  parts: { seq: number; at: number; len: number; from: number; units: number }[];
  /** References left to make, after the last write. */
  refs: PartReference[] | undefined;
  /** Some text was cut: no part is made a reference. */
  cut: boolean;
}

/** Writes the transcripts of one service's agents. */
export class AgentTranscripts {
  readonly #store: TranscriptStore;
  readonly #run: string;
  readonly #now: () => number;
  readonly #writing = new Map<number, Writing>();
  readonly #off: () => void;
  #turn: NodeJS.Immediate | undefined;

  constructor(store: TranscriptStore, run: string, board: Board, now: () => number) {
    this.#store = store;
    this.#run = run;
    this.#now = now;
    this.#off = board.getState().listen((id, event) => {
      const w = this.#writing.get(id);
      if (!w || w.ending) return;
      // A long text, or anything behind one, waits for its turn (in order).
      const units = event.type === 'text' || event.type === 'thought' ? event.text.length : 0;
      if (w.queue.length === 0 && units <= TRANSCRIPT_SLICE) return format(w, event);
      w.queue.push(event);
      w.queued += units;
      // A flood faster than the turns take it is formatted now past this much, so what waits stays bounded.
      while (w.queued > TRANSCRIPT_QUEUE_MAX && w.queue[0] !== undefined) this.#formatQueued(w, w.queue[0], w.queued - TRANSCRIPT_QUEUE_MAX);
      this.#later();
    });
  }

  /** A new agent's transcript: its opening line (or, for a restored agent, its transcript so far), written at once so `tai logs` finds it. */
  open(id: number, task: string, carried?: string): void {
    const formatter = new TranscriptFormatter();
    const buffer = carried ?? (task === '' ? '' : formatter.opening(task));
    const w: Writing = { formatter, cap: emptyCap(), buffer, writtenAt: -Infinity, queue: [], taken: 0, queued: 0, ending: undefined, ended: false, due: true, rawUnits: 0, spans: [], parts: [], refs: undefined, cut: false };
    this.#writing.set(id, w);
    this.#write(id, w, buffer.length);
  }

  /** Asks for a write of what each running agent said since its last write (called on the board's publish). */
  flush(): void {
    const now = this.#now();
    for (const w of this.#writing.values()) {
      if (w.buffer !== '' && !w.due && now - w.writtenAt >= TRANSCRIPT_WRITE_MS) {
        w.due = true;
        this.#later();
      }
    }
  }

  /**
   * The agent ended: its footer goes after what it said, and all is written;
   * at once when little is left, else a slice a turn. When its result went
   * to a record, the parts that are exactly that text then read it from the
   * record instead of holding it a second time.
   */
  end(id: number, state: FinalState, elapsedMs: number, summary: string, result?: { readonly recordId: string; readonly raw: string }): void {
    const w = this.#writing.get(id);
    if (!w || w.ending) return;
    w.ending = { state, elapsedMs, summary, result };
    w.due = true;
    // Little left: the whole end now, as a reader just told the agent ended expects; else all of it in later turns.
    const small = w.queue.length === 0 && w.buffer.length <= TRANSCRIPT_SLICE && (result === undefined || result.raw.length <= TRANSCRIPT_SLICE);
    if (small) this.#work(id, w, Infinity);
    if (this.#writing.has(id)) this.#later();
  }

  /** Stops listening; what is still queued or buffered is written now, whole. */
  dispose(): void {
    this.#off();
    if (this.#turn !== undefined) clearImmediate(this.#turn);
    this.#turn = undefined;
    for (const [id, w] of this.#writing) {
      w.due = w.due || w.buffer !== '' || w.queue.length > 0 || w.ending !== undefined;
      if (w.due) this.#work(id, w, Infinity, true);
    }
  }

  /** The next turn of the loop takes the next slices. */
  #later(): void {
    this.#turn ??= setImmediate(() => {
      this.#turn = undefined;
      let budget = TRANSCRIPT_SLICE;
      for (const [id, w] of this.#writing) if (budget > 0) budget -= this.#work(id, w, budget);
      for (const w of this.#writing.values()) if (w.queue.length > 0 || w.due || w.refs !== undefined) return this.#later();
    });
  }

  /** Takes up to `budget` units of the agent's work, in order: its queue, its footer, a write, its references; returns the units taken. */
  #work(id: number, w: Writing, budget: number, disposing = false): number {
    let used = 0;
    while (used < budget) {
      const step = this.#step(id, w, budget - used, disposing);
      if (step === 0) break;
      used += step;
    }
    return used;
  }

  /** One step of the agent's work within `room` units; 0 when nothing can be done now. */
  #step(id: number, w: Writing, room: number, disposing: boolean): number {
    const first = w.queue[0];
    if (first !== undefined) return this.#formatQueued(w, first, room);
    if (w.ending && !w.ended) {
      w.buffer += w.formatter.footer(w.ending.state, w.ending.elapsedMs, w.ending.summary);
      w.ended = true;
      return 1;
    }
    if (w.due && (w.buffer !== '' || w.ended)) {
      const units = Math.max(1, Math.min(room, w.buffer.length));
      return this.#write(id, w, units) ? units : 0;
    }
    w.due = false;
    if (w.refs !== undefined && !disposing) return this.#reference(id, w, room);
    return 0;
  }

  /** The next slice of the oldest queued event through the formatter (a text in pieces, never inside a surrogate pair). */
  #formatQueued(w: Writing, event: AgentEvent, room: number): number {
    if (event.type !== 'text' && event.type !== 'thought') {
      w.queue.shift();
      format(w, event);
      return 1;
    }
    let end = Math.min(event.text.length, w.taken + Math.max(1, room));
    if (end < event.text.length && isHigh(event.text.charCodeAt(end - 1))) end++;
    format(w, { ...event, text: event.text.slice(w.taken, end) });
    const units = end - w.taken;
    w.queued -= units;
    w.taken = end;
    if (end === event.text.length) {
      w.queue.shift();
      w.taken = 0;
    }
    return units;
  }

  /** Writes the buffer's first `units` (all of it when it is at most that long); false when the database refused. */
  #write(id: number, w: Writing, units: number): boolean {
    const now = this.#now();
    let n = Math.min(w.buffer.length, Math.max(units, 1));
    if (n < w.buffer.length && isHigh(w.buffer.charCodeAt(n - 1))) n++;
    const slice = w.buffer.slice(0, n);
    const last = n === w.buffer.length && w.ended;
    try {
      const parts = this.#store.append(this.#run, id, w.cap, slice, last, now);
      if (!w.cut) wholeParts(w, parts, n);
      w.spans = shifted(w.spans, n);
      w.buffer = w.buffer.slice(n);
      w.writtenAt = now;
      if (w.buffer === '') w.due = false;
      if (last) this.#ended(id, w);
      return true;
    } catch {
      // Locked or full: the text stays buffered for the next write (a transcript is for reading, not supervision).
      w.writtenAt = now;
      w.due = false;
      return false;
    }
  }

  /** All is written: its references are made next (when the result is a record and nothing was cut), else it is done. */
  #ended(id: number, w: Writing): void {
    const result = w.ending?.result;
    if (!result || w.cut || w.cap.cut > 0 || w.parts.length === 0) {
      this.#writing.delete(id);
      return;
    }
    w.refs = inCodePoints(w.parts, result.raw);
    w.parts = [];
  }

  /** Makes the next parts references to the record, up to about `room` code points of them (one at least). */
  #reference(id: number, w: Writing, room: number): number {
    const refs = w.refs ?? [];
    const recordId = w.ending?.result?.recordId;
    let take = 0;
    let units = 0;
    while (take < refs.length && (take === 0 || units + (refs[take]?.len ?? 0) <= room)) units += refs[take++]?.len ?? 0;
    try {
      if (recordId !== undefined) this.#store.reference(this.#run, id, recordId, refs.slice(0, take));
    } catch {
      // Locked or full: the parts keep their own text, as before.
      take = refs.length;
    }
    w.refs = take >= refs.length ? undefined : refs.slice(take);
    if (w.refs === undefined) this.#writing.delete(id);
    return Math.max(1, units);
  }
}

/** One event through the agent's formatter into its buffer. */
function format(w: Writing, event: AgentEvent): void {
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

function isHigh(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

/** The spans after the buffer's first `n` units are written. */
function shifted(spans: readonly Span[], n: number): Span[] {
  return spans.filter((s) => s.bufEnd > n).map((s) => ({ bufStart: Math.max(s.bufStart, n) - n, bufEnd: s.bufEnd - n, rawFrom: s.rawFrom + Math.max(0, n - s.bufStart) }));
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
function inCodePoints(parts: readonly { seq: number; at: number; len: number; from: number; units: number }[], raw: string): PartReference[] {
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
