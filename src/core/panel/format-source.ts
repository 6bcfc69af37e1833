/**
 * What a panel's formatter was given, kept to format it again at a new width so it reads as text written at that width
 * (docs/cockpit.md, "Zoom and focus"). Bounded to what the panel can scroll back to (SOURCE_LINES_MAX line ends,
 * SOURCE_UNITS_MAX units); consecutive streamed text of one kind is one call, so a token stream costs one string.
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
 * A stream call's text is kept in parts of about this many units: a trim then
 * drops whole parts and reads only the part it cuts, where one string of the
 * whole stream would be flattened (copied whole) at every trim.
 */
export const SOURCE_PART_UNITS = 1_024;

/**
 * Streamed pieces gathered before they join a part: a token's string dies young, and the kept text grows by one flat
 * string a part, not a string and a link a token that V8 moves to its old space and frees only in a full collection.
 */
export const PIECES_JOINED = 128;

interface Entry {
  call: SourceCall;
  /** A stream call's text as it grows, in flat parts (the call's own is the first), without the pieces not joined yet. */
  parts: string[];
  /** Pieces appended since the last join, and their units: joined into a part at PIECES_JOINED or SOURCE_PART_UNITS. */
  readonly pending: string[];
  pendingUnits: number;
  units: number;
  /** Line ends it makes at least, at any width. */
  feeds: number;
}

/** The calls kept, oldest first. */
export class FormatSource {
  #entries: Entry[] = [];
  #units = 0;
  #feeds = 0;
  #scanned = 0;

  /** The calls kept, oldest first. */
  get calls(): readonly SourceCall[] {
    return this.#entries.map((e) => (e.call.type === 'stream' ? { ...e.call, text: joined(e).join('') } : e.call));
  }

  /** Units the trims have read so far, to find where to cut (their work, counted). */
  get scanned(): number {
    return this.#scanned;
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
    if (call.type === 'stream') {
      this.addStream(call.thought, call.text);
      return;
    }
    this.#push(call, [], unitsOf(call), feedsOf(call));
  }

  /** Keeps streamed text (add's stream call without making one a token: it joins the stream call before it). */
  addStream(thought: boolean, text: string): void {
    const last = this.#entries[this.#entries.length - 1];
    if (last?.call.type === 'stream' && last.call.thought === thought) {
      last.pending.push(text);
      last.pendingUnits += text.length;
      if (last.pending.length >= PIECES_JOINED || last.pendingUnits >= SOURCE_PART_UNITS) joined(last);
      this.#count(last, text.length, lineEnds(text));
      this.#bound();
      return;
    }
    this.#push({ type: 'stream', thought, text }, [text], text.length, lineEnds(text));
  }

  #push(call: SourceCall, parts: string[], units: number, feeds: number): void {
    const entry: Entry = { call, parts, pending: [], pendingUnits: 0, units: 0, feeds: 0 };
    this.#entries.push(entry);
    this.#count(entry, units, feeds);
    this.#bound();
  }

  #bound(): void {
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
        const at = this.#cutPoint(joined(e), e.units, Math.max(0, units), Math.max(0, feeds));
        if (at < e.units) {
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

  /** Cuts the first `at` units of a stream call: whole parts dropped, the part the cut falls in sliced. */
  #cut(e: Entry, at: number): void {
    let left = at;
    let drop = 0;
    let cutFeeds = 0;
    for (const part of e.parts) {
      if (part.length > left) break;
      left -= part.length;
      cutFeeds += lineEnds(part);
      drop++;
    }
    const parts = e.parts.slice(drop);
    if (left > 0 && parts.length > 0) {
      cutFeeds += lineEnds(parts[0]!.slice(0, left));
      parts[0] = parts[0]!.slice(left);
    }
    e.parts = parts;
    this.#units -= at;
    this.#feeds -= cutFeeds;
    e.units -= at;
    e.feeds -= cutFeeds;
  }

  /**
   * Where to cut a stream call of `total` units so at least `units` units and `feeds` line ends go: on to the next line
   * end when there is one (a line starts clean), never inside a surrogate pair. Reads only the parts up to the cut.
   */
  #cutPoint(parts: readonly string[], total: number, units: number, feeds: number): number {
    let at = Math.min(total, units);
    let base = 0;
    let k = 0;
    // The position after the `feeds`-th line end.
    for (let n = 0, i = -1; n < feeds; ) {
      const part = parts[k];
      if (part === undefined) return total;
      const from = i + 1;
      i = part.indexOf('\n', from);
      this.#scanned += (i < 0 ? part.length : i + 1) - from;
      if (i < 0) {
        base += part.length;
        k++;
        i = -1;
        continue;
      }
      n++;
      at = Math.max(at, base + i + 1);
    }
    if (at <= 0 || at >= total) return at;
    // On to the next line end, unless the cut already follows one.
    for (base = 0, k = 0; k < parts.length && base + parts[k]!.length < at; k++) base += parts[k]!.length;
    const before = at - base - 1;
    const first = parts[k]!;
    if (before >= 0 ? first.charCodeAt(before) === 0x0a : lineEndAt(parts, k - 1)) return at;
    for (let j = k, from = at - base; j < parts.length; j++, from = 0) {
      const part = parts[j]!;
      const end = part.indexOf('\n', from);
      this.#scanned += (end < 0 ? part.length : end + 1) - from;
      if (end >= 0) return base + end + 1;
      base += part.length;
    }
    return isLowSurrogate(charAt(parts, at)) ? at + 1 : at;
  }
}

/** True when part `k` ends with a line end. */
function lineEndAt(parts: readonly string[], k: number): boolean {
  const part = parts[k];
  return part !== undefined && part.charCodeAt(part.length - 1) === 0x0a;
}

/** The unit at `at` of the parts joined (NaN past the end). */
function charAt(parts: readonly string[], at: number): number {
  let base = 0;
  for (const part of parts) {
    if (at < base + part.length) return part.charCodeAt(at - base);
    base += part.length;
  }
  return NaN;
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

/** A stream call's parts, its pending pieces joined into one flat part first. */
function joined(e: Entry): string[] {
  if (e.pending.length > 0) {
    e.parts.push(e.pending.join(''));
    e.pending.length = 0;
    e.pendingUnits = 0;
  }
  return e.parts;
}
