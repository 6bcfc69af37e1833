/**
 * A panel formatter's backlog: events waiting to be formatted, a long text as FORMAT_PIECE pieces, drained a budget at
 * a time so no text an agent prints holds the loop longer than a slice (docs/security.md, "Text without spaces").
 * Past FORMAT_BACKLOG_MAX units the oldest streamed text goes and one line says so (docs/spec.md, "Panel state machine").
 */
import { utf8Length } from './pending.js';

/** The most units of agent text formatted at once: an event longer than this, or any event while a backlog waits, goes to the backlog; the board drains at most this many units a flush. */
export const FORMAT_SLICE = 4096;
/** A long text waits in pieces of this many units, so a budget is kept to within one piece. */
export const FORMAT_PIECE = 512;
/** The most units of waiting text the board formats a flush, shared among the panels behind (wrapped and parsed by the panel's terminal in one turn). */
export const FORMAT_FLUSH = 2048;
/** The most units of streamed text the backlog holds; past it, the oldest goes down to three quarters. */
export const FORMAT_BACKLOG_MAX = 262_144;

/** One step: the bytes it makes, the units of agent text it walks; `text` for a piece of streamed text that may be skipped. */
export interface BacklogStep {
  readonly units: number;
  readonly run: () => string;
  readonly text?: string;
  /** The line that says text was skipped (one stands for every shed in a row). */
  readonly skippedLine?: true;
}

/** The steps waiting, in order. */
export class FormatBacklog {
  #steps: BacklogStep[] = [];
  /** The next step (the ones before it are done). */
  #next = 0;
  /** Units of streamed text waiting. */
  #queued = 0;
  #skipped = 0;

  /** `skippedLine` makes the line that stands where streamed text was skipped. */
  constructor(private readonly skippedLine: () => string) {}

  /** True while a step waits. */
  get waiting(): boolean {
    return this.#next < this.#steps.length;
  }

  /** UTF-8 bytes of streamed text skipped because the backlog was full. */
  get skipped(): number {
    return this.#skipped;
  }

  push(step: BacklogStep): void {
    this.#steps.push(step);
    if (step.text === undefined) return;
    this.#queued += step.units;
    if (this.#queued > FORMAT_BACKLOG_MAX) this.#shed();
  }

  /** Forgets every step waiting (the panel is formatted again from what it was given). */
  clear(): void {
    this.#steps = [];
    this.#next = 0;
    this.#queued = 0;
  }

  /** Runs the steps in order while they fit `budget` units (at least one step); their bytes. */
  drain(budget: number): string {
    let out = '';
    let left = budget;
    while (this.waiting) {
      const step = this.#steps[this.#next];
      if (step === undefined || (step.units > left && left < budget)) break;
      this.#next++;
      left -= step.units;
      if (step.text !== undefined) this.#queued -= step.units;
      out += step.run();
    }
    if (!this.waiting) {
      this.#steps = [];
      this.#next = 0;
    }
    return out;
  }

  /**
   * Skips the start of a streamed text longer than the backlog holds, so
   * that only what would be kept is cut into pieces (a megabyte in one
   * event is not made into thousands of steps to be shed); returns the rest.
   */
  skipHead(text: string): string {
    const keep = Math.floor((FORMAT_BACKLOG_MAX * 3) / 4);
    if (text.length <= FORMAT_BACKLOG_MAX) return text;
    let cut = text.length - keep;
    if (isLowSurrogate(text.charCodeAt(cut)) && isHighSurrogate(text.charCodeAt(cut - 1))) cut++;
    // Counted natively: the head may be a megabyte (a lone surrogate counts 3 bytes here too).
    this.#skipped += Buffer.byteLength(text.slice(0, cut), 'utf8');
    const last = this.#steps[this.#steps.length - 1];
    if (!(this.waiting && last?.skippedLine)) this.#steps.push({ units: 0, run: this.skippedLine, skippedLine: true });
    return text.slice(cut);
  }

  /** Drops the oldest pieces of streamed text down to three quarters of FORMAT_BACKLOG_MAX, a line first saying so. */
  #shed(): void {
    let excess = this.#queued - Math.floor((FORMAT_BACKLOG_MAX * 3) / 4);
    const kept: BacklogStep[] = [{ units: 0, run: this.skippedLine, skippedLine: true }];
    for (const step of this.#steps.slice(this.#next)) {
      if (step.skippedLine) continue;
      if (excess > 0 && step.text !== undefined) {
        excess -= step.units;
        this.#queued -= step.units;
        this.#skipped += utf8Length(step.text);
      } else kept.push(step);
    }
    this.#steps = kept;
    this.#next = 0;
  }
}

/** `text` cut into pieces of at most `size` units, never between the halves of a surrogate pair. */
export function slices(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; ) {
    let end = Math.min(text.length, i + size);
    if (end < text.length && end - i > 1 && isHighSurrogate(text.charCodeAt(end - 1))) end--;
    out.push(text.slice(i, end));
    i = end;
  }
  return out;
}

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}
