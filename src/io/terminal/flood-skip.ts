/**
 * A flood of plain lines into the main pane (`seq 1 2000000`, a big `cat`) parsed only as far as it can still be seen:
 * xterm.js keeps `scrollback + rows` lines, and parsing the lines that scroll out for good was most of the server's time
 * in a flood (docs/perf-log.md, "Server and client"). Flooding is more lines than the screen keeps within FLOOD_WINDOW_MS;
 * plain is text that changes no mode, colour or charset. Plain writes then wait at most FLOOD_FLUSH_MS and are trimmed.
 */
import { after, type Cancel } from '../after.js';

/** The window in which the lines that make a flood are counted. */
export const FLOOD_WINDOW_MS = 100;

/** The longest held text waits before it is written (and drawn): a frame's time. */
export const FLOOD_FLUSH_MS = 33;

/** The screen behind the skip. */
export interface FloodSink {
  /** Writes to the screen (clamped, parsed). */
  write(data: string, callback?: () => void): void;
  /** Line feeds that must follow a cut: scrollback + 2 x rows. */
  keep(): number;
  /** Whether lines may be cut now (ground, normal buffer, no scroll region, nothing unparsed). */
  trimmable(): boolean;
}

/** Whether every code of `data` is plain (see the vocabulary). */
export function isPlain(data: string): boolean {
  for (let i = 0; i < data.length; i++) {
    const c = data.charCodeAt(i);
    if (c >= 0x20 ? c === 0x7f || (c >= 0x80 && c <= 0x9f) : c !== 0x0a && c !== 0x0d && c !== 0x09 && c !== 0x08) return false;
  }
  return true;
}

function lineFeeds(data: string): number {
  let n = 0;
  for (let i = data.indexOf('\n'); i >= 0; i = data.indexOf('\n', i + 1)) n++;
  return n;
}

/** Holds and trims a flood of plain lines in front of a screen. */
export class FloodSkip {
  /** The held writes, in order, and their line feeds (kept apart: one long string would be copied at every cut). */
  private held: string[] = [];
  private heldLf: number[] = [];
  private heldLines = 0;
  private callbacks: (() => void)[] = [];
  private windowStart = -Infinity;
  private windowLines = 0;
  private flooding = false;
  private timer: Cancel | undefined;
  /** Lines cut so far (tests, the benchmark). */
  cut = 0;

  constructor(
    private readonly sink: FloodSink,
    private readonly now: () => number = Date.now,
    private readonly later: (ms: number, fn: () => void) => Cancel = after,
  ) {}

  /** Writes `data`, or holds it while a flood of plain lines goes on; `callback` once it is parsed (or cut). */
  write(data: string, callback?: () => void): void {
    const t = this.now();
    if (t - this.windowStart >= FLOOD_WINDOW_MS) {
      this.flooding = this.windowLines > this.sink.keep();
      this.windowStart = t;
      this.windowLines = 0;
    }
    const lines = lineFeeds(data);
    this.windowLines += lines;
    if (this.windowLines > this.sink.keep()) this.flooding = true;
    if (!this.flooding || !isPlain(data)) {
      this.flush();
      this.sink.write(data, callback);
      return;
    }
    this.held.push(data);
    this.heldLf.push(lines);
    this.heldLines += lines;
    if (callback !== undefined) this.callbacks.push(callback);
    if (this.heldLines > 2 * this.sink.keep()) this.trim();
    this.timer ??= this.later(FLOOD_FLUSH_MS, () => {
      this.timer = undefined;
      this.flush();
    });
  }

  /**
   * Whether a write of `data` now would go straight to the screen (nothing
   * held, and no flood that would hold it): the same test as write's, made
   * without changing anything.
   */
  passes(data: string): boolean {
    if (this.held.length > 0) return false;
    const fresh = this.now() - this.windowStart >= FLOOD_WINDOW_MS;
    const lines = (fresh ? 0 : this.windowLines) + lineFeeds(data);
    const flooding = (fresh ? this.windowLines > this.sink.keep() : this.flooding) || lines > this.sink.keep();
    return !flooding || !isPlain(data);
  }

  /** Writes what is held now. */
  flush(): void {
    this.timer?.();
    this.timer = undefined;
    if (this.held.length === 0) return;
    if (this.heldLines > this.sink.keep()) this.trim(); // the screen parses no more than it keeps
    const data = this.held.join('');
    const done = this.callbacks;
    this.held = [];
    this.heldLf = [];
    this.heldLines = 0;
    this.callbacks = [];
    this.sink.write(data, () => {
      for (const c of done) c();
    });
  }

  /** Forgets the timer (the screen is disposed). */
  stop(): void {
    this.timer?.();
    this.timer = undefined;
  }

  /**
   * Cuts the held text after the last CR LF at or before its (heldLines - keep)-th line feed. The screen ends the same:
   * the kept text starts at column 0 (a CR replaces the cut), its first `rows` line feeds bring the cursor to the bottom
   * from any row, and the next `scrollback + rows` push out every line made before.
   */
  private trim(): void {
    if (!this.sink.trimmable()) return;
    const drop = this.heldLines - this.sink.keep();
    const { held, heldLf } = this;
    /** A CR LF split between two writes: the LF first in write k. */
    const splitAt = (k: number) => k > 0 && held[k]!.charCodeAt(0) === 0x0a && held[k - 1]!.endsWith('\r');
    let cutK = -1;
    let cutEnd = 0;
    let before = 0;
    for (let k = 0; k < held.length && before < drop; k++) {
      const text = held[k]!;
      if (before + heldLf[k]! <= drop) {
        // Every line feed of this write may be cut: its last CR LF.
        const pos = text.lastIndexOf('\r\n');
        if (pos >= 0) [cutK, cutEnd] = [k, pos + 2];
        else if (splitAt(k)) [cutK, cutEnd] = [k, 1];
      } else {
        let n = before;
        for (let i = text.indexOf('\n'); i >= 0 && n < drop; i = text.indexOf('\n', i + 1)) {
          n++;
          if (i > 0 ? text.charCodeAt(i - 1) === 0x0d : splitAt(k)) [cutK, cutEnd] = [k, i + 1];
        }
      }
      before += heldLf[k]!;
    }
    if (cutK < 0) return;
    const text = held[cutK]!;
    let inWrite = 0;
    for (let i = text.indexOf('\n'); i >= 0 && i < cutEnd; i = text.indexOf('\n', i + 1)) inWrite++;
    let lines = inWrite;
    for (let k = 0; k < cutK; k++) lines += heldLf[k]!;
    this.held = ['\r', text.slice(cutEnd), ...held.slice(cutK + 1)];
    this.heldLf = [0, heldLf[cutK]! - inWrite, ...heldLf.slice(cutK + 1)];
    this.heldLines -= lines;
    this.cut += lines;
  }
}
