/**
 * The agent service's transcripts (issue 13, `tai logs`): every event the
 * board is told (board.listen) is turned into plain text by the agent's
 * TranscriptFormatter and buffered per agent; the buffer is written to the
 * state database (src/io/storage/transcripts.ts) when the board publishes,
 * at most every TRANSCRIPT_WRITE_MS per agent, and at once with the footer
 * when the agent ends. A write the database refuses stays buffered for the
 * next one; supervision never waits on it.
 */
import { emptyCap, TRANSCRIPT_MAX_BYTES, TRANSCRIPT_TAIL_BYTES, utf8Bytes, utf8Suffix, type CapState } from '../../core/agents/transcript-cap.js';
import { TranscriptFormatter } from '../../core/agents/transcript.js';
import type { FinalState } from '../../core/panel/panel-state.js';
import type { Board } from '../../../store/board.js';
import type { TranscriptStore } from '../storage/transcripts.js';

/** The shortest time between two writes of one agent's transcript while it runs. */
export const TRANSCRIPT_WRITE_MS = 250;

/** One agent's transcript being written. */
interface Writing {
  readonly formatter: TranscriptFormatter;
  readonly cap: CapState;
  buffer: string;
  writtenAt: number;
  ended: boolean;
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
      w.buffer += w.formatter.event(event);
      // A database that refuses every write must not let the buffer grow without end: its newest part is kept, the rest counted as cut.
      if (w.buffer.length > TRANSCRIPT_MAX_BYTES) {
        const kept = utf8Suffix(w.buffer, TRANSCRIPT_TAIL_BYTES);
        w.cap.cut += utf8Bytes(w.buffer) - utf8Bytes(kept);
        w.buffer = kept;
      }
    });
  }

  /** A new agent's transcript: its opening line (or, for a restored agent, its transcript so far), written at once so `tai logs` finds it. */
  open(id: number, task: string, carried?: string): void {
    const formatter = new TranscriptFormatter();
    const buffer = carried ?? (task === '' ? '' : formatter.opening(task));
    const w: Writing = { formatter, cap: emptyCap(), buffer, writtenAt: -Infinity, ended: false };
    this.#writing.set(id, w);
    this.#write(id, w);
  }

  /** Writes what each running agent said since its last write (called on the board's publish). */
  flush(): void {
    const now = this.#now();
    for (const [id, w] of this.#writing) if (w.buffer !== '' && now - w.writtenAt >= TRANSCRIPT_WRITE_MS) this.#write(id, w);
  }

  /** The agent ended: its footer, and the whole buffer written now. */
  end(id: number, state: FinalState, elapsedMs: number, summary: string): void {
    const w = this.#writing.get(id);
    if (!w || w.ended) return;
    w.buffer += w.formatter.footer(state, elapsedMs, summary);
    w.ended = true;
    this.#write(id, w);
  }

  /** Stops listening; what is still buffered is written once more. */
  dispose(): void {
    this.#off();
    for (const [id, w] of this.#writing) if (w.buffer !== '' || w.ended) this.#write(id, w);
  }

  #write(id: number, w: Writing): void {
    const now = this.#now();
    try {
      this.#store.append(this.#run, id, w.cap, w.buffer, w.ended, now);
      w.buffer = '';
      w.writtenAt = now;
      if (w.ended) this.#writing.delete(id);
    } catch {
      // Locked or full: the text stays buffered for the next write (a transcript is for reading, not supervision).
      w.writtenAt = now;
    }
  }
}
