/**
 * Turns agent events into a feed pane's bytes (docs/spec.md, "Formatter and sanitizing"): sanitized, word-wrapped ANSI
 * with CRLF. Text and thoughts flow through one sanitizer and one word wrap, so a sequence or word split across tokens
 * is rejoined; a structural line releases the held word, resets the stream's colour and starts fresh. Width is the
 * pane's minus one (the last column is never written). While the backlog is not empty every call queues behind it.
 */
import type { AgentEvent } from '../events.js';
import { assertNever } from '../never.js';
import type { FinalState } from './panel-state.js';
import { createSanitizer, type Sanitizer } from '../text/sanitize.js';
import { WordWrap } from '../text/wrap.js';
import { FORMAT_PIECE, FORMAT_SLICE, FormatBacklog, slices } from './format-backlog.js';
import { FormatSource, type SourceCall } from './format-source.js';
import { block, CRLF, DIM, eventLines, footerLine, keptEvent, lineWidth, openingLines, rawLines, RESET, rowLines, unitsOf } from './format-lines.js';

export { FORMAT_BACKLOG_MAX, FORMAT_FLUSH, FORMAT_PIECE, FORMAT_SLICE } from './format-backlog.js';

const DIM_ITALIC = '\x1b[2;3m';
/** Reset first so that a colour the agent left on does not tint the thought. */
const THOUGHT = '\x1b[0;2;3m';
const SGR_GLOBAL = /\x1b\[[0-9;:]*m/g;
/** Home, clear the screen and its scrollback: a panel formatted again starts on an empty screen. */
const CLEAR = '\x1b[H\x1b[2J\x1b[3J';

/** The formatter of one panel: call opening() once, event() per event, footer() once. */
export class Formatter {
  #width: number;
  #wrap: WordWrap;
  #stream: Sanitizer = createSanitizer({ carriageReturn: true });
  /** The stream is inside a thought (dim italic is on). */
  #thought = false;
  /** The stream emitted an agent SGR that may still be in effect. */
  #dirty = false;
  readonly #backlog = new FormatBacklog(() => this.#begin() + block(DIM + '… output skipped: the panel fell behind' + RESET, this.#width));
  #formatted = 0;
  readonly #source = new FormatSource();
  /** Formatting the source again at a new width: the board holds the output back until it is done. */
  #reflowing = false;

  /** A formatter for a pane `cols` columns wide. */
  constructor(cols: number) {
    this.#width = lineWidth(cols);
    this.#wrap = new WordWrap(this.#width);
  }

  /**
   * Follows a change of the pane's width: what it was given is formatted
   * again at the new width, from a cleared screen (true: the caller drops
   * the output still pending, which the new formatting holds again).
   */
  setWidth(cols: number): boolean {
    const width = lineWidth(cols);
    if (width === this.#width) return false;
    this.#width = width;
    if (this.#source.empty) {
      this.#wrap.setWidth(width);
      return false;
    }
    this.#again();
    return true;
  }

  /**
   * Formats what it was given again at the same width, from a cleared screen: for a new screen of a panel whose old one
   * was dropped (a finished agent's, kept for the agent list). False when nothing was kept.
   */
  formatAgain(): boolean {
    if (this.#source.empty) return false;
    this.#again();
    return true;
  }

  /** Queues a clear of the screen and every kept call at the width now set; the output is held back until it is done. */
  #again(): void {
    this.#wrap = new WordWrap(this.#width);
    this.#stream = createSanitizer({ carriageReturn: true });
    this.#thought = false;
    this.#dirty = false;
    this.#backlog.clear();
    this.#reflowing = true;
    this.#backlog.push({ units: 0, run: () => CLEAR });
    for (const call of this.#source.calls) this.#replay(call);
    this.#backlog.push({ units: 0, run: () => ((this.#reflowing = false), '') });
  }

  /** True from a change of width until its new formatting is done: the output is held back meanwhile, so the screen never shows half of it. */
  get reflowing(): boolean {
    return this.#reflowing;
  }

  /** Units of text kept to be formatted again at a new width. */
  get sourceUnits(): number {
    return this.#source.units;
  }

  /** One kept call queued in the backlog again. */
  #replay(call: SourceCall): void {
    switch (call.type) {
      case 'opening':
        this.#backlog.push({ units: call.task.length, run: () => this.#openingNow(call.task) });
        return;
      case 'stream':
        this.#queue({ type: call.thought ? 'thought' : 'text', text: call.text }, call.text.length);
        return;
      case 'event':
        this.#queue(call.event, unitsOf(call.event), call.chars);
        return;
      case 'rows':
        this.#backlog.push({ units: 0, run: () => this.#rowsNow(call.rows) });
        return;
      case 'raw':
        this.#backlog.push({ units: 0, run: () => this.#rawNow(call.text) });
        return;
      case 'footer':
        this.#backlog.push({ units: 0, run: () => this.#footerNow(call.state, call.elapsedMs, call.summary) });
        return;
      default:
        assertNever(call);
    }
  }

  /** True while the stream holds back a word; the board calls release() after a pause. */
  get holding(): boolean {
    return this.#wrap.holding;
  }

  /** True while events wait in the backlog for drain(). */
  get backlog(): boolean {
    return this.#backlog.waiting;
  }

  /** UTF-16 units of agent text formatted so far (the bound on a step is in these units). */
  get formatted(): number {
    return this.#formatted;
  }

  /** UTF-8 bytes of streamed text skipped because the backlog was full. */
  get skipped(): number {
    return this.#backlog.skipped;
  }

  /** Emits the held word (the text stream paused for ORCH_WORD_RELEASE); nothing while a backlog waits. */
  release(): string {
    return this.backlog ? '' : this.#wrap.release();
  }

  /** The dim `▸ task` line and a blank line. */
  opening(task: string): string {
    this.#source.add({ type: 'opening', task });
    return this.#inOrder(0, () => this.#openingNow(task));
  }

  #openingNow(task: string): string {
    return this.#begin() + openingLines(task, this.#width);
  }

  /** Bytes written into the panel (the board's `write` to an agent's panel), kept in order; whole lines of text are wrapped by word like the formatter's own (format-lines.ts, rawLines). */
  raw(text: string): string {
    if (text === '') return '';
    this.#source.add({ type: 'raw', text });
    return this.#inOrder(0, () => this.#rawNow(text));
  }

  /** Lines of text start after the held word, on a fresh line, as a structural line does; other bytes go as written. */
  #rawNow(text: string): string {
    const lines = rawLines(text, this.#width);
    return lines === undefined ? text : this.#begin() + lines;
  }

  /**
   * The bytes for one event ('' for usage, which only the header shows); ''
   * too when it went to the backlog (a long text, or anything behind one).
   */
  event(ev: AgentEvent): string {
    if (ev.type === 'text' || ev.type === 'thought') this.#source.addStream(ev.type === 'thought', ev.text);
    else if (ev.type !== 'usage' && ev.type !== 'session') this.#source.add(keptEvent(ev));
    const units = unitsOf(ev);
    if (!this.backlog && units <= FORMAT_SLICE) return this.#eventNow(ev, units);
    this.#queue(ev, units);
    return '';
  }

  /** Queues an event in the backlog, a long text in pieces. */
  #queue(ev: AgentEvent, units: number, chars?: number): void {
    if (ev.type === 'text' || ev.type === 'thought') {
      for (const slice of slices(this.#backlog.skipHead(ev.text), FORMAT_PIECE)) {
        const part: AgentEvent = { ...ev, text: slice };
        this.#backlog.push({ units: slice.length, text: slice, run: () => this.#eventNow(part, slice.length) });
      }
    } else this.#backlog.push({ units, run: () => this.#eventNow(ev, units, chars) });
  }

  /** Formats the backlog's steps in order while they fit `budget` units (at least one step); their bytes. */
  drain(budget: number = FORMAT_SLICE): string {
    return this.#backlog.drain(budget);
  }

  /** Runs `make` now, or after the backlog when one waits. */
  #inOrder(units: number, make: () => string): string {
    if (!this.backlog) return make();
    this.#backlog.push({ units, run: make });
    return '';
  }

  /** `chars`: a kept tool result's whole size (its text kept only as far as it is shown). */
  #eventNow(ev: AgentEvent, units: number, chars?: number): string {
    this.#formatted += units;
    switch (ev.type) {
      case 'text':
        return this.#streamText(ev.text, false);
      case 'thought':
        return this.#streamText(ev.text, true);
      case 'usage':
      case 'session':
        return '';
      default:
        return this.#begin() + eventLines(ev, this.#width, chars);
    }
  }

  /** Rows already fitted to the width (a question's block): each on a line of its own, after a fresh line. */
  rows(rows: readonly string[]): string {
    this.#source.add({ type: 'rows', rows });
    return this.#inOrder(0, () => this.#rowsNow(rows));
  }

  #rowsNow(rows: readonly string[]): string {
    return this.#begin() + rowLines(rows, this.#width);
  }

  /** The closing lines: a blank line, then the coloured state, the elapsed time and the summary. */
  footer(state: FinalState, elapsedMs: number, summary: string): string {
    this.#source.add({ type: 'footer', state, elapsedMs, summary });
    return this.#inOrder(0, () => this.#footerNow(state, elapsedMs, summary));
  }

  #footerNow(state: FinalState, elapsedMs: number, summary: string): string {
    // Whatever the stream sanitizer still holds is an unfinished sequence or character.
    const tail = this.#streamClean(this.#stream.end(), this.#thought);
    const out = (tail === '' ? '' : this.#wrap.push(tail)) + this.#begin() + CRLF;
    return out + footerLine(state, elapsedMs, summary, this.#width);
  }

  #streamText(raw: string, thought: boolean): string {
    const clean = this.#streamClean(this.#stream.push(raw), thought);
    if (clean === '') return '';
    let lead = '';
    if (thought && !this.#thought) lead = THOUGHT;
    else if (!thought && this.#thought) lead = RESET;
    // A thought after text that did not end its line starts on a line of its own, and text after a thought too.
    // (Text that begins with its own line end needs none added.)
    const fresh = lead === '' || /^\r?\n/.test(clean) ? '' : this.#wrap.release() + this.#wrap.newline();
    this.#thought = thought;
    // An agent SGR in plain text stays in effect until our next reset.
    if (!thought) this.#dirty = (this.#dirty && lead === '') || clean.includes('\x1b');
    // The SGR goes through the wrap (zero width) so it stays in order with a held word.
    return fresh + this.#wrap.push(lead + clean);
  }

  /** In a thought, dim italic is put back after every agent SGR, which may have reset it. */
  #streamClean(clean: string, thought: boolean): string {
    return thought && clean.includes('\x1b') ? clean.replace(SGR_GLOBAL, `$&${DIM_ITALIC}`) : clean;
  }

  /** Releases the held word, resets the stream's colours and starts a fresh line. */
  #begin(): string {
    let out = this.#wrap.release();
    if (this.#thought || this.#dirty) out += RESET;
    this.#thought = false;
    this.#dirty = false;
    return out + this.#wrap.newline();
  }
}
