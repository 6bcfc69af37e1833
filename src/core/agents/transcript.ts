/**
 * An agent's transcript as plain text (`tai logs`): the events its panel shows (docs/spec.md, "Formatter and
 * sanitizing"), sanitized, without ANSI and unwrapped, for any terminal, file or pipe. Text and thoughts go
 * through one sanitizer, so a sequence split across tokens is still seen; every other event is a line of its own.
 */
import type { AgentEvent } from '../events.js';
import { assertNever } from '../never.js';
import { formatElapsed } from '../panel/header.js';
import type { FinalState } from '../panel/panel-state.js';
import { ORCH_TOOL_RESULT_LINES } from '../policy.js';
import { createSanitizer, sanitize, sanitizeLine, stripSgr, type Sanitizer } from '../text/sanitize.js';
import { codePoints } from './claim-check.js';

/** How each final state opens the footer (the panel's icons, without colour). */
export const TRANSCRIPT_FOOTER: Readonly<Record<FinalState, string>> = {
  done: '✓ done',
  failed: '✗ failed',
  timeout: '⏱ timeout',
  cancelled: '⊘ cancelled',
};

/** One agent's events to plain-text lines: call opening() once, event() per event, footer() once. */
export class TranscriptFormatter {
  readonly #stream: Sanitizer = createSanitizer();
  /** The last character written was not a line end (a structural line must start fresh). */
  #open = false;
  /** The stream is inside a thought. */
  #thought = false;

  /** The `▸ task` line and a blank line. */
  opening(task: string): string {
    return `▸ ${sanitizeLine(task).trim()}\n\n`;
  }

  /** The plain text for one event ('' for usage, which only the header shows). */
  event(ev: AgentEvent): string {
    switch (ev.type) {
      case 'text':
        return this.#streamText(ev.text, false);
      case 'thought':
        return this.#streamText(ev.text, true);
      case 'tool_start': {
        const args = sanitizeLine(ev.args).trim();
        return this.#line(`⏺ ${sanitizeLine(ev.name).trim()}${args === '' ? '' : `(${args})`}`);
      }
      case 'tool_end':
        return this.#toolEnd(ev.result, ev.failed);
      case 'plan':
        return ev.entries.length === 0 ? this.#line('▤') : ev.entries.map((e, k) => this.#line(`${k === 0 ? '▤ ' : '  '}${sanitizeLine(e).trim()}`)).join('');
      case 'note':
        return this.#line(`· ${sanitizeLine(ev.text).trim()}`);
      case 'error':
        return this.#line(`✗ ${sanitizeLine(ev.text).trim()}`);
      case 'usage':
      case 'session':
        return '';
      default:
        return assertNever(ev);
    }
  }

  /** The closing lines: a blank line, then the state, the elapsed time and the summary. */
  footer(state: FinalState, elapsedMs: number, summary: string): string {
    const tail = stripSgr(this.#stream.end());
    const shown = sanitizeLine(summary).trim();
    return this.#raw(tail) + this.#fresh() + '\n' + `${TRANSCRIPT_FOOTER[state]} · ${formatElapsed(elapsedMs)}${shown === '' ? '' : ` · ${shown}`}\n`;
  }

  #streamText(raw: string, thought: boolean): string {
    const clean = stripSgr(this.#stream.push(raw));
    if (clean === '') return '';
    // A switch between text and thought starts a line of its own.
    const lead = thought !== this.#thought ? this.#fresh() : '';
    this.#thought = thought;
    if (!thought) return lead + this.#raw(clean);
    // Every line of a thought is marked, so a reader without colours tells it from the answer.
    let out = lead;
    for (const piece of clean.split(/(?<=\n)/)) {
      out += (this.#open ? '' : '~ ') + piece;
      this.#open = !piece.endsWith('\n');
    }
    return out;
  }

  #toolEnd(raw: string, failed: boolean): string {
    const lines = stripSgr(sanitize(raw))
      .split('\n')
      .map((l) => l.replace(/\t/g, ' ').trimEnd())
      .filter((l) => l.trim() !== '')
      .slice(0, ORCH_TOOL_RESULT_LINES);
    if (lines.length === 0) lines.push('(no output)');
    const n = codePoints(raw);
    const size = ` · ${n} ${n === 1 ? 'char' : 'chars'}${failed ? ' · failed' : ''}`;
    return lines.map((text, k) => this.#line(`${k === 0 ? '⎿ ' : '  '}${text}${k === lines.length - 1 ? size : ''}`)).join('');
  }

  /** A structural line, on a fresh line. */
  #line(text: string): string {
    const lead = this.#fresh();
    this.#thought = false;
    return `${lead}${text}\n`;
  }

  /** A line end when the stream left one open. */
  #fresh(): string {
    if (!this.#open) return '';
    this.#open = false;
    return '\n';
  }

  #raw(text: string): string {
    if (text !== '') this.#open = !text.endsWith('\n');
    return text;
  }
}
