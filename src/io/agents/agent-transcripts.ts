/**
 * The agent service's transcripts (issue 13, `tai logs`): every event the
 * board is told (board.listen) is turned into plain text by the agent's
 * TranscriptFormatter and buffered per agent; the buffer is written to the
 * state database (src/io/storage/transcripts.ts) when the board publishes,
 * at most every TRANSCRIPT_WRITE_MS per agent, and at once with the footer
 * when the agent ends. A write the database refuses stays buffered for the
 * next one; supervision never waits on it. When the agent's result went to a
 * record, the parts that repeat it read it from there (transcripts.ts), so a
 * long result is stored once.
 */
import { emptyCap, TRANSCRIPT_MAX_BYTES, TRANSCRIPT_TAIL_BYTES, utf8Bytes, utf8Suffix, type CapState } from '../../core/agents/transcript-cap.js';
import { TranscriptFormatter } from '../../core/agents/transcript.js';
import type { FinalState } from '../../core/panel/panel-state.js';
import type { Board } from '../../../store/board.js';
import type { PartReference, TranscriptStore } from '../storage/transcripts.js';
import { codePoints } from '../../core/agents/claim-check.js';

/** The shortest time between two writes of one agent's transcript while it runs. */
export const TRANSCRIPT_WRITE_MS = 250;

/** A stretch of the buffer that is exactly the agent's text from `rawFrom` (UTF-16 units into its text events). */
interface Span {
  readonly bufStart: number;
  bufEnd: number;
  readonly rawFrom: number;
}

/** One agent's transcript being written. */
interface Writing {
  readonly formatter: TranscriptFormatter;
  readonly cap: CapState;
  buffer: string;
  writtenAt: number;
  ended: boolean;
  /** UTF-16 units of the agent's text events so far: where its next text stands in its result. */
  rawUnits: number;
  /** The buffer's verbatim stretches. */
  spans: Span[];
  /** Written parts' longest verbatim stretch: code points into the part (`at`, `len`), UTF-16 units into the result (`from`); made references when the result is a record. */
  parts: { seq: number; at: number; len: number; from: number; units: number }[];
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

  constructor(store: TranscriptStore, run: string, board: Board, now: () => number) {
    this.#store = store;
    this.#run = run;
    this.#now = now;
    this.#off = board.getState().listen((id, event) => {
      const w = this.#writing.get(id);
      if (!w || w.ended) return;
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
    });
  }

  /** A new agent's transcript: its opening line (or, for a restored agent, its transcript so far), written at once so `tai logs` finds it. */
  open(id: number, task: string, carried?: string): void {
    const formatter = new TranscriptFormatter();
    const buffer = carried ?? (task === '' ? '' : formatter.opening(task));
    const w: Writing = { formatter, cap: emptyCap(), buffer, writtenAt: -Infinity, ended: false, rawUnits: 0, spans: [], parts: [], cut: false };
    this.#writing.set(id, w);
    this.#write(id, w);
  }

  /** Writes what each running agent said since its last write (called on the board's publish). */
  flush(): void {
    const now = this.#now();
    for (const [id, w] of this.#writing) if (w.buffer !== '' && now - w.writtenAt >= TRANSCRIPT_WRITE_MS) this.#write(id, w);
  }

  /**
   * The agent ended: its footer, and the whole buffer written now. When its
   * result went to a record, the parts that are exactly that text read it
   * from the record instead of holding it a second time.
   */
  end(id: number, state: FinalState, elapsedMs: number, summary: string, result?: { readonly recordId: string; readonly raw: string }): void {
    const w = this.#writing.get(id);
    if (!w || w.ended) return;
    w.buffer += w.formatter.footer(state, elapsedMs, summary);
    w.ended = true;
    this.#write(id, w);
    if (!result || w.cut || w.cap.cut > 0 || w.parts.length === 0 || this.#writing.has(id)) return;
    try {
      this.#store.reference(this.#run, id, result.recordId, inCodePoints(w.parts, result.raw));
    } catch {
      // Locked or full: the transcript keeps its own text, as before.
    }
  }

  /** Stops listening; what is still buffered is written once more. */
  dispose(): void {
    this.#off();
    for (const [id, w] of this.#writing) if (w.buffer !== '' || w.ended) this.#write(id, w);
  }

  #write(id: number, w: Writing): void {
    const now = this.#now();
    try {
      const parts = this.#store.append(this.#run, id, w.cap, w.buffer, w.ended, now);
      if (!w.cut) wholeParts(w, parts);
      w.spans = [];
      w.buffer = '';
      w.writtenAt = now;
      if (w.ended) this.#writing.delete(id);
    } catch {
      // Locked or full: the text stays buffered for the next write (a transcript is for reading, not supervision).
      w.writtenAt = now;
    }
  }
}

/** The buffer's next `len` units are the agent's text as it sent it: a verbatim stretch (joined to the last when they touch). */
function verbatim(w: Writing, len: number): void {
  const last = w.spans.at(-1);
  if (last && last.bufEnd === w.buffer.length && last.rawFrom + (last.bufEnd - last.bufStart) === w.rawUnits) last.bufEnd += len;
  else w.spans.push({ bufStart: w.buffer.length, bufEnd: w.buffer.length + len, rawFrom: w.rawUnits });
}

/** Smaller verbatim stretches are not worth a reference. */
const REFERENCE_MIN = 256;

/** Notes each written part's longest verbatim stretch (the parts are the buffer in order, unless some was cut). */
function wholeParts(w: Writing, parts: readonly { readonly seq: number; readonly text: string }[]): void {
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
  if (at !== w.buffer.length) {
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
