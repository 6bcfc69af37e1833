/**
 * What a panel's formatter was given (formatter.ts), kept so that the panel
 * can be formatted again at a new width (a zoom, an unzoom, a resize) and
 * read exactly as text written at that width: words wrapped, nothing cut
 * (docs/cockpit.md, "Zoom and focus").
 *
 * Bounded to what the panel can scroll back to: the calls whose newer ones
 * hold fewer than SOURCE_LINES_MAX line ends (every line end is a line at any
 * width), and at most SOURCE_UNITS_MAX units of text. Consecutive streamed
 * text of one kind is one call (the stream's sanitizer and word wrap join
 * pieces anyway), so a token stream costs one string, not an object a token.
 */
import type { AgentEvent } from '../events.js';
import type { FinalState } from './panel-state.js';

/** A panel's scrollback (src/io/terminal/screen.ts, PANEL_SCROLLBACK) and the rows of the largest window laid out: lines past these are never seen again. */
export const SOURCE_LINES_MAX = 2_000 + 300;
/** The most units of text kept; past it the oldest goes down to three quarters (one cut per quarter, not one per token). */
export const SOURCE_UNITS_MAX = 65_536;

/** One call the formatter was given. */
export type SourceCall =
  | { readonly type: 'opening'; readonly task: string }
  | { readonly type: 'stream'; readonly thought: boolean; readonly text: string }
  | { readonly type: 'event'; readonly event: AgentEvent; readonly chars?: number }
  | { readonly type: 'rows'; readonly rows: readonly string[] }
  | { readonly type: 'raw'; readonly text: string }
  | { readonly type: 'footer'; readonly state: FinalState; readonly elapsedMs: number; readonly summary: string };

/**
 * Streamed pieces gathered before they join a stream call's text: a token's
 * string then dies young, and the text kept for the panel's life grows by one
 * flat string per this many pieces instead of a string and a link per token,
 * which V8 would move to its old space and collect only in a full collection.
 */
export const PIECES_JOINED = 128;

interface Entry {
  call: SourceCall;
  /** A stream call's text as it grows (the call's own is the first piece), without the pieces not joined yet. */
  text: string;
  /** Pieces appended since the last join (at most PIECES_JOINED). */
  readonly pieces: string[];
  units: number;
  /** Line ends it makes at least, at any width. */
  feeds: number;
}

/** The calls kept, oldest first. */
export class FormatSource {
  #entries: Entry[] = [];
  #units = 0;
  #feeds = 0;

  /** The calls kept, oldest first. */
  get calls(): readonly SourceCall[] {
    return this.#entries.map((e) => (e.call.type === 'stream' ? { ...e.call, text: joined(e) } : e.call));
  }

  /** Units of text kept. */
  get units(): number {
    return this.#units;
  }

  /** True when nothing was kept. */
  get empty(): boolean {
    return this.#entries.length === 0;
  }

  /** Keeps one call (streamed text joins the stream call before it). */
  add(call: SourceCall): void {
    const last = this.#entries[this.#entries.length - 1];
    if (call.type === 'stream' && last?.call.type === 'stream' && last.call.thought === call.thought) {
      last.pieces.push(call.text);
      if (last.pieces.length >= PIECES_JOINED) joined(last);
      this.#count(last, call.text.length, lineEnds(call.text));
    } else {
      const units = unitsOf(call);
      const entry: Entry = { call, text: call.type === 'stream' ? call.text : '', pieces: [], units: 0, feeds: 0 };
      this.#entries.push(entry);
      this.#count(entry, units, feedsOf(call));
    }
    if (this.#units > SOURCE_UNITS_MAX || this.#feeds > SOURCE_LINES_MAX + SOURCE_LINES_MAX / 4) this.#trim();
  }

  #count(entry: Entry, units: number, feeds: number): void {
    entry.units += units;
    entry.feeds += feeds;
    this.#units += units;
    this.#feeds += feeds;
  }

  /** Drops the oldest down to three quarters of the units and to SOURCE_LINES_MAX line ends; a stream call is cut at a line end when it has one. */
  #trim(): void {
    let units = Math.max(0, this.#units - Math.floor((SOURCE_UNITS_MAX * 3) / 4));
    let feeds = Math.max(0, this.#feeds - SOURCE_LINES_MAX);
    let drop = 0;
    for (const e of this.#entries) {
      if (units <= 0 && feeds <= 0) break;
      if (e.call.type === 'stream') {
        const at = cutPoint(joined(e), Math.max(0, units), Math.max(0, feeds));
        if (at < e.text.length) {
          this.#cut(e, at);
          break;
        }
      }
      units -= e.units;
      feeds -= e.feeds;
      this.#units -= e.units;
      this.#feeds -= e.feeds;
      drop++;
    }
    this.#entries = this.#entries.slice(drop);
  }

  /** Cuts the first `at` units of a stream call. */
  #cut(e: Entry, at: number): void {
    const cutFeeds = lineEnds(e.text.slice(0, at));
    e.text = e.text.slice(at);
    this.#units -= at;
    this.#feeds -= cutFeeds;
    e.units -= at;
    e.feeds -= cutFeeds;
  }
}

/**
 * Where to cut `text` so that at least `units` units and `feeds` line ends go:
 * on to the next line end when there is one (a line starts clean), never
 * inside a surrogate pair; `text.length` when all of it must go.
 */
function cutPoint(text: string, units: number, feeds: number): number {
  let at = Math.min(text.length, units);
  for (let n = 0, i = -1; n < feeds; n++) {
    i = text.indexOf('\n', i + 1);
    if (i < 0) return text.length;
    at = Math.max(at, i + 1);
  }
  if (at > 0 && at < text.length && text.charCodeAt(at - 1) !== 0x0a) {
    const end = text.indexOf('\n', at);
    if (end >= 0) at = end + 1;
    else if (isLowSurrogate(text.charCodeAt(at))) at++;
  }
  return at;
}

function unitsOf(call: SourceCall): number {
  switch (call.type) {
    case 'opening':
      return call.task.length;
    case 'stream':
    case 'raw':
      return call.text.length;
    case 'rows':
      return call.rows.reduce((n, r) => n + r.length, 0);
    case 'footer':
      return call.summary.length;
    case 'event': {
      const ev = call.event;
      if (ev.type === 'tool_start') return ev.name.length + ev.args.length;
      if (ev.type === 'tool_end') return ev.result.length;
      if (ev.type === 'plan') return ev.entries.reduce((n, e) => n + e.length, 0);
      return 'text' in ev ? ev.text.length : 0;
    }
  }
}

/** The line ends a call makes at least, whatever the width. */
function feedsOf(call: SourceCall): number {
  switch (call.type) {
    case 'opening':
    case 'footer':
      return 2;
    case 'stream':
    case 'raw':
      return lineEnds(call.text);
    case 'rows':
      return call.rows.length;
    case 'event':
      return 1;
  }
}

function lineEnds(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

/** A stream call's whole text, its pieces joined into it first (one flat string for them all). */
function joined(e: Entry): string {
  if (e.pieces.length > 0) {
    e.text += e.pieces.join('');
    e.pieces.length = 0;
  }
  return e.text;
}
