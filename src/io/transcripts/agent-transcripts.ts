/**
 * The folder `src/io/transcripts/`: the agent service's transcripts for `tai logs` (docs/agents.md, "An agent's
 * transcript"; the store is src/io/storage/transcripts.ts). Every event the board is told becomes plain text,
 * buffered per agent and written when due; a refused write waits for the next, supervision never does. A long
 * text is written TRANSCRIPT_SLICE units a turn, so nothing an agent prints holds the loop for long.
 */
import { TranscriptFormatter } from '../../core/agents/transcript.js';
import type { AgentEvent } from '../../core/events.js';
import type { FinalState, PanelState } from '../../core/panel/panel-state.js';
import type { Board } from '../../../store/board.js';
import { checkpointSoon, unsynced } from '../storage/state-db.js';
import type { TranscriptStore } from '../storage/transcripts.js';
import { format, inCodePoints, isHigh, newWriting, partFull, TRANSCRIPT_WRITE_MS, writeDue, written, type Writing } from './transcript-buffer.js';

export { TRANSCRIPT_PART_UNITS, TRANSCRIPT_WRITE_MS } from './transcript-buffer.js';

/** Units of agents' text sanitized, or of a transcript written, in one turn of the loop (one commit of at most about 48 KiB). */
export const TRANSCRIPT_SLICE = 16_384;

/** An agent's end with at most this many units left is written at once, so a reader told it ended reads it whole; a longer one a slice a turn. */
export const TRANSCRIPT_END_AT_ONCE = 65_536;

/** Units of text waiting for the formatter, per agent, past which it is formatted at once. */
export const TRANSCRIPT_QUEUE_MAX = 4 * 1_048_576;

/** Quiet after the last transcript is done, before the database's log is truncated (a new agent often follows at once). */
export const TRANSCRIPT_REST_MS = 2_000;

/** Panel states in which an agent's turn has ended: what it said so far is written at once. */
const RESTING: ReadonlySet<PanelState> = new Set(['idle', 'asking', 'waiting']);

/** Writes the transcripts of one service's agents. */
export class AgentTranscripts {
  readonly #store: TranscriptStore;
  readonly #run: string;
  readonly #now: () => number;
  readonly #writing = new Map<number, Writing>();
  readonly #off: () => void;
  readonly #board: Board;
  #turn: NodeJS.Immediate | undefined;
  /** Wakes a flush when text waits and no publish may come (an agent that went quiet mid-line). */
  #timer: NodeJS.Timeout | undefined;
  /** Truncates the database's log once every transcript is done and a while has passed. */
  #rest: NodeJS.Timeout | undefined;

  constructor(store: TranscriptStore, run: string, board: Board, now: () => number) {
    this.#store = store;
    this.#run = run;
    this.#now = now;
    this.#board = board;
    this.#off = board.getState().listen((id, event) => {
      const w = this.#writing.get(id);
      if (!w || w.ending) return;
      // A long text, or anything behind one, waits for its turn (in order).
      const units = event.type === 'text' || event.type === 'thought' ? event.text.length : 0;
      if (w.queue.length === 0 && units <= TRANSCRIPT_SLICE) {
        format(w, event);
        if (partFull(w) && !w.due) {
          w.due = true;
          this.#later();
        } else this.#arm(TRANSCRIPT_WRITE_MS);
        return;
      }
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
    const w = newWriting(formatter, buffer);
    this.#writing.set(id, w);
    clearTimeout(this.#rest);
    this.#rest = undefined;
    this.#write(id, w, buffer.length);
  }

  /** Asks for a write of what each running agent said since its last write, when one is due (called on the board's publish). */
  flush(): void {
    const now = this.#now();
    let resting: ReadonlySet<number> | undefined;
    let wait = Infinity;
    for (const [id, w] of this.#writing) {
      if (w.buffer === '' || w.due) continue;
      resting ??= this.#resting();
      if (writeDue(w, now, resting.has(id))) {
        w.due = true;
        this.#later();
      } else wait = Math.min(wait, w.writtenAt + TRANSCRIPT_WRITE_MS - now);
    }
    if (wait !== Infinity) this.#arm(wait);
  }

  /** The agents whose turn has ended: their panels are idle, asking or held. */
  #resting(): ReadonlySet<number> {
    const ids = new Set<number>();
    for (const p of this.#board.getState().panels) if (RESTING.has(p.state)) ids.add(p.id);
    return ids;
  }

  /** A flush in `ms` (at least 10 ms), unless one is already set. */
  #arm(ms: number): void {
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.flush();
    }, Math.max(10, Math.ceil(ms)));
    this.#timer.unref();
  }

  /**
   * The agent ended: its footer goes after its text and all is written, at once when little is left, else a slice a
   * turn. Parts that are exactly a result stored as a record then read it from the record instead.
   */
  end(id: number, state: FinalState, elapsedMs: number, summary: string, result?: { readonly recordId: string; readonly raw: string }): void {
    const w = this.#writing.get(id);
    if (!w || w.ending) return;
    w.ending = { state, elapsedMs, summary, result };
    w.due = true;
    // Little left: the whole end now, as a reader just told the agent ended expects; else all of it in later turns.
    const small = w.queue.length === 0 && w.buffer.length <= TRANSCRIPT_END_AT_ONCE && (result === undefined || result.raw.length <= TRANSCRIPT_END_AT_ONCE);
    if (small) this.#work(id, w, Infinity);
    if (this.#writing.has(id)) this.#later();
  }

  /** Stops listening; what is still queued or buffered is written now, whole. */
  dispose(): void {
    this.#off();
    clearTimeout(this.#timer);
    this.#timer = undefined;
    clearTimeout(this.#rest);
    this.#rest = undefined;
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
    if (partFull(w)) w.due = true;
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
      // A transcript is for reading, not supervision: its parts do not wait for the disk, and the log is checkpointed in a turn of its own.
      const parts = last ? this.#store.append(this.#run, id, w.cap, slice, last, now) : unsynced(this.#store.db, () => this.#store.append(this.#run, id, w.cap, slice, last, now));
      checkpointSoon(this.#store.db, 3 * slice.length);
      written(w, parts, n);
      w.writtenAt = now;
      w.refused = false;
      if (w.buffer === '') w.due = false;
      if (last) this.#ended(id, w);
      return true;
    } catch {
      // Locked or full: the text stays buffered for the next write (a transcript is for reading, not supervision).
      w.writtenAt = now;
      w.refused = true;
      w.due = false;
      return false;
    }
  }

  /** All is written: its references are made next (when the result is a record and nothing was cut), else it is done. */
  #ended(id: number, w: Writing): void {
    const result = w.ending?.result;
    if (!result || w.cut || w.cap.cut > 0 || w.parts.length === 0) {
      this.#done(id);
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
      if (recordId !== undefined) {
        this.#store.reference(this.#run, id, recordId, refs.slice(0, take));
        checkpointSoon(this.#store.db, units);
      }
    } catch {
      // Locked or full: the parts keep their own text, as before.
      take = refs.length;
    }
    w.refs = take >= refs.length ? undefined : refs.slice(take);
    if (w.refs === undefined) this.#done(id);
    return Math.max(1, units);
  }

  /** The agent's transcript is all written; the last one done starts the wait for rest. */
  #done(id: number): void {
    this.#writing.delete(id);
    if (this.#writing.size > 0 || this.#rest !== undefined) return;
    this.#rest = setTimeout(() => {
      this.#rest = undefined;
      if (this.#writing.size === 0) this.#store.rest();
    }, TRANSCRIPT_REST_MS);
    this.#rest.unref();
  }
}
